// SPDX-License-Identifier: MIT
#include "launch.hpp"

#include "summary.hpp"

#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_kind.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace r2r::batch {
namespace fs = std::filesystem;

core::result<nlohmann::json> scheduler_config(const std::string& scheduler_id, const std::string& config_text,
                                              const std::string& gpus) {
  nlohmann::json config = nlohmann::json::object();
  std::string text = config_text;
  if (!text.empty() && text[0] == '@') {
    std::ifstream in(text.substr(1));
    if (!in) return core::fail(core::phase::usage, "--scheduler-config: cannot read " + text.substr(1));
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  if (!text.empty()) {
    try {
      config = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
      return core::fail(core::phase::usage, std::string("--scheduler-config is not JSON: ") + e.what());
    }
  }
  if (gpus.empty()) return config;
  if (scheduler_id != "r2r.scheduler.local")
    return core::fail(core::phase::usage, "--gpus is for r2r.scheduler.local; put GPUs in --scheduler-config");
  nlohmann::json list = nlohmann::json::array();
  std::stringstream s(gpus);
  std::string g;
  while (std::getline(s, g, ','))
    if (!g.empty()) list.push_back(g);
  config["gpus"] = list;
  return config;
}

std::vector<std::string> runner_argv(const std::vector<std::string>& plugin_paths, const std::string& log_level) {
  std::error_code ec;
  const char* runner_env = std::getenv("R2R_BATCH_RUNNER");
  std::vector<std::string> argv{runner_env != nullptr && *runner_env != '\0'
                                    ? std::string(runner_env)
                                    : fs::read_symlink("/proc/self/exe", ec).string()};
  for (const auto& p : plugin_paths) argv.insert(argv.end(), {"--plugin-path", fs::absolute(p).string()});
  argv.insert(argv.end(), {"--log-level", log_level});
  return argv;
}

core::result<engine_result> run_with_scheduler(const engine_options& options,
                                               const std::vector<core::search_location>& search_path,
                                               const nlohmann::json& config) {
  auto registry = core::plugin_registry::load(search_path);
  if (!registry) return tl::unexpected(registry.error());
  const auto* plugin = registry->find(options.scheduler_id);
  if (plugin == nullptr || plugin->info.kind != R2R_KIND_SCHEDULER)
    return core::fail(core::phase::config, "no scheduler plugin `" + options.scheduler_id +
                                               "` on the plugin path; `repo2rocm plugins list --kind scheduler` "
                                               "lists them");
  core::instance_options io;
  io.name = options.scheduler_id;
  auto instance = core::plugin_instance::create(*plugin, config, io);
  if (!instance) return tl::unexpected(instance.error());
  // Ctrl-C / SIGTERM end this process only; the jobs keep running and `--resume` collects them.
  const scheduler_call call = [&](const std::string& method, const nlohmann::json& request) {
    return (*instance)->call(method, request);
  };
  return run_batch(options, call);
}

core::result<nlohmann::json> rebuild_summary(const fs::path& dir) {
  const fs::path runs = fs::is_directory(dir / "runs") ? dir / "runs" : dir;
  std::vector<fs::path> run_dirs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(runs, ec))
    if (e.is_directory() && fs::exists(e.path() / "events.jsonl")) run_dirs.push_back(e.path());
  if (ec || run_dirs.empty())
    return core::fail(core::phase::usage,
                      "no run directories (with events.jsonl) under " + runs.string() +
                          ": give the batch directory (holding runs/) or a directory of run directories");
  std::sort(run_dirs.begin(), run_dirs.end());
  std::vector<summary_row> rows;
  for (const auto& d : run_dirs) rows.push_back(row_from_run_dir(d));
  auto summary = build_summary(rows, "", {});
  write_summary(dir, summary);
  return summary;
}

}  // namespace r2r::batch
