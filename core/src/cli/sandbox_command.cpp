// SPDX-License-Identifier: MIT
// `repo2rocm sandbox doctor`: prints run::sandbox_doctor (sandbox_doctor.hpp) for people or as JSON.
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "sandbox_doctor.hpp"

#include <ostream>

namespace r2r::cli {

int run_sandbox_doctor(const cli_context& ctx) {
  if (!ctx.words.empty()) {
    return report_error(ctx, core::error{core::phase::usage, "usage: repo2rocm sandbox doctor [--json]"}, exit_usage);
  }
  auto registry = core::plugin_registry::load(ctx.search_path());
  if (!registry) return report_error(ctx, registry.error(), exit_error);
  nlohmann::json j = run::sandbox_doctor(*registry);
  const bool any_engine = j["any_engine"].get<bool>();
  if (ctx.json) {
    j.erase("any_engine");
    *ctx.out << j.dump(2) << "\n";
  } else {
    auto& out = *ctx.out;
    out << "engines:\n";
    for (const auto& e : j["engines"]) {
      out << "  " << e["name"].get<std::string>() << " (" << e["endpoint"].get<std::string>() << "): ";
      if (e["answered"].get<bool>()) {
        out << e.value("engine", "") << " " << e.value("version", "");
        if (!e.value("api_version", "").empty()) out << ", API " << e.value("api_version", "");
        out << "\n";
        // docs/sandboxes.md, "Network": none | install (package installs only) | always.
        if (!e.value("network", "").empty()) {
          out << "    network: " << e.value("network", "") << "; networked execs use " << e.value("network_target", "")
              << "\n";
        }
      } else {
        out << "not available: " << e.value("problem", "") << "\n";
      }
    }
    const auto& a = j["assets"];
    out << "assets: fetched by repo2rocm from " << a["endpoint"].get<std::string>() << " (HF_ENDPOINT; token "
        << (a["token"].get<bool>() ? "set" : "not set") << "), mounted read-only at " << a["mount"].get<std::string>()
        << " with the hub offline\n";
    out << "gpus: " << j["gpu_summary"].get<std::string>() << "\n";
    for (const auto& line : j["can"]) out << "can:    " << line.get<std::string>() << "\n";
    for (const auto& line : j["cannot"]) out << "cannot: " << line.get<std::string>() << "\n";
  }
  return any_engine ? exit_ok : exit_error;
}

}  // namespace r2r::cli
