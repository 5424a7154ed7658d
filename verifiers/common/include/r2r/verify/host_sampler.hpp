// SPDX-License-Identifier: MIT
// The host-side GPU sampler: runs in the verifier's own process, outside the sandbox, while the
// collector's exec is in flight. Each sample records, as raw text, what the host's own tools say
// about GPU processes (NVIDIA: nvidia-smi --query-compute-apps, pmon and utilization.gpu; AMD:
// KFD sysfs /sys/class/kfd/kfd/proc/<pid>/vram_* and gpu_busy_percent) and, for every pid named,
// its NSpid chain, pid namespace, uid and newly mapped shared objects from the host's /proc, so
// judge can attribute host pids to the workload the collector ran and a planned build's code to a
// process that was on the GPU. /proc/<pid>/maps of another user's process needs ptrace-read
// access (the verifier as root, or the same uid); without it `objects_error` says so. Tools are found by absolute path
// in `tool_dirs` (host directories), never through PATH and never inside the sandbox. THREADING: start() spawns one
// sampling thread; stop() joins it and returns the samples. The object is not shared between threads otherwise.
#pragma once

#include <r2r/verify/capture.hpp>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace r2r::plugins::verifier {

struct host_sampler_config {
  std::string vendor = "nvidia";  // nvidia | amd
  double interval_s = 1;
  std::vector<std::string> tool_dirs{"/usr/bin", "/usr/local/nvidia/bin", "/usr/local/bin", "/opt/rocm/bin", "/bin"};
  std::string proc_root = "/proc";
  std::string kfd_root = "/sys/class/kfd/kfd/proc";
  std::string drm_root = "/sys/class/drm";
  bool pmon = true;  // nvidia-smi pmon per-process SM utilisation (about one second per sample)
};

/// The first executable `name` in cfg.tool_dirs, or nullopt.
std::optional<std::string> host_tool(const host_sampler_config& cfg, const std::string& name);
/// The file-backed shared objects ("/….so" and "/….so.N" paths) in <proc_root>/<pid>/maps, in
/// first-mapped order, each once. Throws std::runtime_error naming the file when it cannot be read
/// (the process left, or the verifier lacks ptrace-read access to it).
std::vector<std::string> mapped_objects(const std::string& proc_root, long long pid);

/// Per host pid, the objects already reported, so each sample carries only new mappings.
using object_memo = std::map<long long, std::set<std::string>>;
/// One sample, synchronously. With `memo`, each process's `objects` lists only what no earlier
/// sample with the same memo reported for that pid.
host_sample take_host_sample(const host_sampler_config& cfg, object_memo* memo = nullptr);
/// Whether this host can be sampled at all for cfg.vendor, and with what ("nvidia-smi at ...").
std::pair<bool, std::string> host_sampler_available(const host_sampler_config& cfg);

class host_sampler {
 public:
  explicit host_sampler(host_sampler_config cfg);
  ~host_sampler();
  host_sampler(const host_sampler&) = delete;
  host_sampler& operator=(const host_sampler&) = delete;
  void start();
  /// Stops the thread (waits for the sample in progress) and returns every sample taken.
  std::vector<host_sample> stop();

 private:
  void loop();
  host_sampler_config cfg_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<host_sample> samples_;
  object_memo memo_;  // used by the sampling thread only
};

}  // namespace r2r::plugins::verifier
