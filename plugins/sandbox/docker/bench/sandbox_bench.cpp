// SPDX-License-Identifier: MIT
// Benchmark of r2r.sandbox.docker through the real plugin path (load the .so, create an instance,
// JSON calls validated against the sandbox schemas): N trivial execs, one checkpoint, one rollback.
// Usage: r2r-sandbox-bench PLUGIN.so SOCKET IMAGE [N]. Prints one JSON object. Run by
// bench/sandbox_bench.sh, which starts a private dockerd and compares with `docker exec`.
#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_loader.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>

namespace {
double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: r2r-sandbox-bench PLUGIN.so SOCKET IMAGE [N]\n";
    return 2;
  }
  const int n = argc > 4 ? std::atoi(argv[4]) : 100;
  auto outcome = r2r::core::load_plugin_file(argv[1]);
  if (outcome.plugins.empty()) {
    std::cerr << "no plugin in " << argv[1] << "\n";
    return 1;
  }
  auto instance = r2r::core::plugin_instance::create(outcome.plugins.front(), {{"socket", argv[2]}});
  if (!instance) {
    std::cerr << instance.error().to_string() << "\n";
    return 1;
  }
  auto& s = **instance;
  const auto workspace = std::filesystem::temp_directory_path() / "r2r-bench-ws";
  std::filesystem::create_directories(workspace);
  auto created = s.call("create", {{"image", argv[3]}, {"workspace", workspace.string()}});
  if (!created) {
    std::cerr << created.error().to_string() << "\n";
    return 1;
  }
  const std::string id = (*created)["sandbox_id"];
  std::vector<double> times;
  for (int i = 0; i < n; ++i) {
    const auto t = std::chrono::steady_clock::now();
    auto r = s.call("exec", {{"sandbox_id", id}, {"command", "true"}});
    times.push_back(ms_since(t));
    if (!r || (*r)["exit_code"] != 0) {
      std::cerr << "exec failed\n";
      return 1;
    }
  }
  std::sort(times.begin(), times.end());
  s.call("exec", {{"sandbox_id", id}, {"command", "echo data > /workspace/f; mkdir -p /opt && echo x > /opt/x"}});
  auto t = std::chrono::steady_clock::now();
  auto cp = s.call("checkpoint", {{"sandbox_id", id}, {"name", "bench"}});
  const double checkpoint_ms = ms_since(t);
  s.call("exec", {{"sandbox_id", id}, {"command", "rm -rf /workspace/f /opt/x"}});
  t = std::chrono::steady_clock::now();
  auto rb = s.call("rollback", {{"sandbox_id", id}, {"checkpoint", "bench"}});
  const double rollback_ms = ms_since(t);
  if (!cp || !rb) {
    std::cerr << "checkpoint or rollback failed\n";
    return 1;
  }
  auto check = s.call("exec", {{"sandbox_id", id}, {"command", "cat /workspace/f /opt/x"}});
  const bool restored = check && (*check)["stdout"] == "data\nx\n";
  s.call("destroy", {{"sandbox_id", id}});
  std::filesystem::remove_all(workspace);
  std::cout << nlohmann::json{{"execs", n},
                              {"exec_median_ms", times[times.size() / 2]},
                              {"exec_min_ms", times.front()},
                              {"exec_max_ms", times.back()},
                              {"checkpoint_ms", checkpoint_ms},
                              {"rollback_ms", rollback_ms},
                              {"rollback_restored_files", restored}}
                   .dump()
            << "\n";
  return restored ? 0 : 1;
}
