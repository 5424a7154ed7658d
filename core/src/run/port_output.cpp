// SPDX-License-Identifier: MIT
#include "port_output.hpp"

#include <iomanip>
#include <map>

namespace r2r::run {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::int64_t count(const json& summary, const std::string& key) {
  return summary.value(key, std::int64_t{0});
}

}  // namespace

void print_port_summary(std::ostream& out, const json& report, const fs::path& source, const fs::path& dir) {
  const json& s = report.at("summary");
  out << "repo2rocm port: " << source.string() << " -> " << dir.string() << "\n"
      << "  files:       " << count(s, "files_total") << " in the tree, " << count(s, "files_considered")
      << " handled by a converter: " << count(s, "converted") << " converted, " << count(s, "unchanged")
      << " unchanged, " << count(s, "error") << " with errors\n"
      << "  conversion:  " << count(s, "renamed") << " names renamed, " << count(s, "includes_rewritten")
      << " includes rewritten, " << count(s, "kernel_launches") << " kernel launches kept\n"
      << "  left for review: " << count(s, "diagnostics_error") << " errors, " << count(s, "diagnostics_warning")
      << " warnings, " << count(s, "diagnostics_note") << " notes (each with file:line:column in convert.json)\n"
      << "  hazards:     " << count(s, "hazards") << " (" << count(s, "hazards_error") << " errors, "
      << count(s, "hazards_warning") << " warnings, " << count(s, "hazards_note") << " notes)\n";
  std::map<std::string, std::map<std::string, int>> by_arch;
  for (const auto& b : report.at("builds")) by_arch[b.value("arch", "")][b.value("status", "")]++;
  for (const auto& [arch, statuses] : by_arch) {
    out << "  build " << arch << ":";
    const char* sep = " ";
    for (const auto& [status, n] : statuses) {
      out << sep << n << " " << status;
      sep = ", ";
    }
    out << "\n";
  }
  out << "  stages:";
  const char* sep = " ";
  for (const auto& stage : report.at("stages")) {
    out << sep << stage.value("name", "") << " " << stage.value("status", "") << " (" << std::fixed
        << std::setprecision(2) << stage.value("seconds", 0.0) << " s)";
    sep = ", ";
  }
  out << "\n";
  for (const auto& stage : report.at("stages")) {
    if (stage.value("status", "") != "ok") {
      out << "  note: stage " << stage.value("name", "") << " " << stage.value("status", "") << ": "
          << stage.value("message", "") << "\n";
    }
  }
  out << "  wrote " << (dir / "tree").string() << ", " << (dir / "patch.diff").string() << ", "
      << (dir / "convert.json").string() << "\n";
}

}  // namespace r2r::run
