// SPDX-License-Identifier: MIT
// `repo2rocm validate PIPELINE.json`: the whole file against the pipeline schema, then every
// plugin config against its plugin's schema; every problem with its JSON pointer and plugin id.
// Lists the resolved stages (after `extends`) and says whether the file can drive `repo2rocm run`
// (run::check_run_pipeline). Creates no plugin instance.
#include "cli_context.hpp"
#include "exit_codes.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/run/engine.hpp>

#include <ostream>

namespace r2r::cli {

int run_validate(const cli_context& ctx) {
  if (ctx.words.size() != 1) {
    return report_error(ctx, core::error{core::phase::usage, "usage: repo2rocm validate PIPELINE.json"}, exit_usage);
  }
  const std::string& file = ctx.words[0];
  auto parsed = core::parse_pipeline_file(file);
  std::vector<core::config_problem> problems = parsed.problems;
  std::size_t plugin_count = 0;
  std::vector<core::disabled_plugin> disabled;
  if (parsed.config) {
    auto registry = core::plugin_registry::load(
        ctx.search_path(parsed.config->search_paths, parsed.config->file.parent_path().string()));
    if (!registry) return report_error(ctx, registry.error(), exit_error);
    plugin_count = registry->list().size();
    disabled = registry->disabled();
    auto more = core::check_pipeline_plugins(*parsed.config, *registry);
    problems.insert(problems.end(), more.begin(), more.end());
  }
  const bool ok = problems.empty();
  std::vector<core::config_problem> run_problems;
  nlohmann::json resolved = nlohmann::json::array();
  if (parsed.config) {
    run_problems = run::check_run_pipeline(*parsed.config, 1);
    for (const auto& s : parsed.config->stages)
      resolved.push_back({{"stage", s.stage}, {"name", s.name}, {"use", s.plugin.use}, {"config", s.plugin.config}});
  }
  if (ctx.json) {
    nlohmann::json j{
        {"ok", ok}, {"file", file}, {"plugins_loaded", plugin_count}, {"problems", nlohmann::json::array()}};
    for (const auto& p : problems) {
      j["problems"].push_back({{"pointer", p.pointer}, {"plugin_id", p.plugin_id}, {"message", p.message}});
    }
    if (parsed.config) {
      j["stages"] = parsed.config->stages.size();
      j["resolved"] = resolved;
      j["runnable"] = run_problems.empty();
      j["run_problems"] = nlohmann::json::array();
      for (const auto& p : run_problems) j["run_problems"].push_back({{"pointer", p.pointer}, {"message", p.message}});
    }
    *ctx.out << j.dump(2) << "\n";
  } else if (ok) {
    *ctx.out << "ok: " << file << " (" << parsed.config->stages.size() << " stages, " << parsed.config->instances.size()
             << " instances; " << plugin_count << " plugins loaded";
    if (!disabled.empty()) *ctx.out << ", " << disabled.size() << " disabled";
    *ctx.out << ")\n";
    for (const auto& r : resolved)
      *ctx.out << "  " << r["stage"].get<std::string>() << "\t" << r["name"].get<std::string>() << "\t"
               << r["use"].get<std::string>() << "\n";
    if (run_problems.empty()) *ctx.out << "repo2rocm run: can drive a run\n";
    for (const auto& p : run_problems) *ctx.out << "repo2rocm run: not a run pipeline: " << p.message << "\n";
  } else {
    *ctx.err << file << ": " << problems.size() << " problem(s):\n";
    for (const auto& p : problems) *ctx.err << "  " << p.to_string() << "\n";
  }
  return ok ? exit_ok : exit_usage;
}

}  // namespace r2r::cli
