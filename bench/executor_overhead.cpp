// SPDX-License-Identifier: MIT
// The executor's own cost per turn: policy round trip through the plugin ABI (scripted policy),
// action validation, the guard chain with the real in-tree guards, compaction and redaction of a
// 6 KB stdout + stderr, guard observe, the workspace snapshot, and the trajectory line written and
// fsync'd. The sandbox is bench.sandbox.null (returns at once), so no command time is included.
//   r2r-bench-executor [--turns N] [--workspace-files N] [--history N]  (history: turns sent to the policy, 0 = all)
#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/executor/executor.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  int turns = 300;
  int files = 20;
  int history = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--turns") == 0) turns = std::stoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--workspace-files") == 0) files = std::stoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--history") == 0) history = std::stoi(argv[i + 1]);
  }
  const fs::path exe_dir = fs::canonical("/proc/self/exe").parent_path();
  const fs::path plugins = exe_dir.parent_path() / "lib" / "r2r" / "plugins";
  const fs::path bench_plugins = exe_dir.parent_path() / "lib" / "r2r" / "bench-plugins";
  std::random_device rd;
  const fs::path dir = fs::temp_directory_path() / ("r2r-bench-executor-" + std::to_string(rd()));
  fs::create_directories(dir / "src");
  for (int i = 0; i < files; ++i)
    std::ofstream(dir / "src" / ("f" + std::to_string(i) + ".py")) << std::string(2000, 'x');

  nlohmann::json script = nlohmann::json::array();
  for (int i = 0; i < turns; ++i) {
    script.push_back({{"type", "run"}, {"command", "python train.py --epoch " + std::to_string(i) + " --device cuda"}});
  }
  const nlohmann::json pipeline{
      {"version", 1},
      {"name", "bench-executor"},
      {"plugins", {{"search_paths", {bench_plugins.string(), plugins.string()}}}},
      {"pipeline",
       {{{"stage", "guard"}, {"name", "cpu-fallback"}, {"use", "r2r.guard.cpu-fallback"}},
        {{"stage", "guard"}, {"name", "accelerator-swap"}, {"use", "r2r.guard.accelerator-swap"}},
        {{"stage", "guard"}, {"name", "success-claim"}, {"use", "r2r.guard.success-claim"}},
        {{"stage", "policy"}, {"name", "policy"}, {"use", "test.policy.scripted"}, {"config", {{"script", script}}}},
        {{"stage", "sandbox"}, {"name", "sandbox"}, {"use", "bench.sandbox.null"}}}}};
  const fs::path pipeline_file = dir / "pipeline.json";
  std::ofstream(pipeline_file) << pipeline.dump(2);

  auto parsed = r2r::core::parse_pipeline_file(pipeline_file);
  if (!parsed.config) {
    for (const auto& p : parsed.problems) std::cerr << p.to_string() << "\n";
    return 2;
  }
  std::vector<r2r::core::search_location> path;
  for (const auto& p : parsed.config->search_paths) path.push_back({p, "pipeline"});
  auto registry = r2r::core::plugin_registry::load(path);
  if (!registry) return std::cerr << registry.error().to_string() << "\n", 1;
  auto session = r2r::core::pipeline_session::create(*parsed.config, *registry);
  if (!session) return std::cerr << session.error().to_string() << "\n", 1;

  r2r::executor::run_options options;
  options.run_dir = dir / "run";
  options.workspace_source = dir / "src";
  options.caps.max_turns = turns;
  options.history_turns = history;
  options.stuck.hint_after = turns + 1;  // the same failing command every turn: keep the detector quiet
  options.pipeline_file = pipeline_file;
  const auto start = std::chrono::steady_clock::now();
  auto outcome = r2r::executor::run(**session, options);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!outcome) return std::cerr << outcome.error().to_string() << "\n", 1;

  std::vector<double> per_turn;
  std::ifstream in(options.run_dir / "trajectory.jsonl");
  for (std::string line; std::getline(in, line);)
    per_turn.push_back(nlohmann::json::parse(line).at("seconds").get<double>() * 1000);
  std::sort(per_turn.begin(), per_turn.end());
  if (per_turn.empty()) return std::cerr << "no turns recorded\n", 1;
  auto pct = [&](double p) { return per_turn[static_cast<std::size_t>(p * static_cast<double>(per_turn.size() - 1))]; };
  std::printf("turns %zu (outcome %s), workspace %d files x 2 KB, history %s\n", per_turn.size(),
              std::string(r2r::executor::to_string(outcome->kind)).c_str(), files,
              history > 0 ? std::to_string(history).c_str() : "all");
  std::printf("per turn: median %.3f ms, p90 %.3f ms, max %.3f ms; whole run %.3f ms/turn\n", pct(0.5), pct(0.9),
              per_turn.back(), total * 1000 / static_cast<double>(per_turn.size()));
  fs::remove_all(dir);
  return 0;
}
