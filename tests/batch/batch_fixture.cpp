// SPDX-License-Identifier: MIT
#include "batch_fixture.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace r2r::test::batch {
namespace fs = std::filesystem;

std::string batch_command(const std::string& args) {
  return "R2R_PLUGIN_PATH= '" + std::string(R2R_TEST_REPO2ROCM) + "' --plugin-path '" + plugin_dir().string() +
         "' batch " + args;
}

std::string fake_runner() {
  return std::string(R2R_TEST_BATCH_DIR) + "/fake_run.sh";
}

void write_fake_gpus(const temp_dir& root, int gpus) {
  root.write("dev/kfd", "");
  root.write("sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 16\ngfx_target_version 0\n");
  for (int i = 0; i < gpus; ++i) {
    root.write("sys/class/kfd/kfd/topology/nodes/" + std::to_string(i + 1) + "/properties",
               "simd_count 304\ngfx_target_version 90402\ndrm_render_minor " + std::to_string(128 + 8 * i) + "\n");
    root.write("dev/dri/renderD" + std::to_string(128 + 8 * i), "");
  }
}

nlohmann::json read_json_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str(), nullptr, false);
}

std::vector<nlohmann::json> read_events(const fs::path& batch_dir) {
  std::vector<nlohmann::json> out;
  std::ifstream in(batch_dir / "events.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

bool is_repo2rocm(int pid) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  return !ec && fs::equivalent(exe, R2R_TEST_REPO2ROCM, ec);
}

int invocations(const fs::path& run_dir) {
  std::ifstream in(run_dir / "invocations");
  return static_cast<int>(std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
}

std::map<std::string, std::string> results(const fs::path& batch_dir) {
  std::map<std::string, std::string> out;
  const auto s = read_json_file(batch_dir / "summary.json");
  if (!s.is_object()) return out;
  for (const auto& r : s["rows"]) out[r.value("key", "")] = r.value("result", "");
  return out;
}

std::vector<std::string> gpu_overlaps(const std::vector<nlohmann::json>& events) {
  struct span {
    double a, b;
    std::string key;
  };
  std::map<std::string, std::vector<span>> by_gpu;
  std::set<std::string> seen;  // a batch killed after an event and before batch.json reports it again
  for (const auto& e : events) {
    const std::string kind = e.value("event", "");
    if (kind != "job_finished" && kind != "job_retry") continue;
    if (!seen.insert(e.value("key", "") + "#" + std::to_string(e.value("attempt", 0))).second) continue;
    by_gpu[e.value("node", "") + ":" + e.value("gpu", "")].push_back(
        {e.value("started_at", 0.0), e.value("finished_at", 0.0), e.value("key", "")});
  }
  std::vector<std::string> out;
  for (auto& [gpu, spans] : by_gpu) {
    std::sort(spans.begin(), spans.end(), [](const span& x, const span& y) { return x.a < y.a; });
    for (std::size_t i = 1; i < spans.size(); ++i) {
      if (spans[i].a < spans[i - 1].b)
        out.push_back("GPU " + gpu + ": " + spans[i].key + " started before " + spans[i - 1].key + " ended");
    }
  }
  return out;
}

}  // namespace r2r::test::batch
