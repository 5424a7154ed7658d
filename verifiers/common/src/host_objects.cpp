// SPDX-License-Identifier: MIT
#include <r2r/verify/host_objects.hpp>

namespace r2r::plugins::verifier {

host_code workload_objects(const std::vector<host_sample>& samples, const std::set<long long>& gpu_pids) {
  host_code out;
  std::set<long long> failed;
  for (const auto& s : samples)
    for (const auto& p : s.procs) {
      if (!gpu_pids.contains(p.pid)) continue;
      if (!p.objects_error.empty()) {
        if (failed.insert(p.pid).second) out.errors.push_back("pid " + std::to_string(p.pid) + ": " + p.objects_error);
        continue;
      }
      out.read = true;
      for (std::size_t i = 0; i < p.objects.size(); ++i) {
        out.objects.emplace(p.objects[i], p.pid);
        if (i < p.object_ctimes.size()) out.ctimes.emplace(p.objects[i], p.object_ctimes[i]);
      }
    }
  return out;
}

std::string object_written_before_run(const host_code& code, const std::string& path) {
  const auto c = code.ctimes.find(path);
  if (c == code.ctimes.end() || c->second < 0)
    return "the host could not read the ctime of " + path + ", so nothing shows it predates the run";
  if (code.run_start <= 0) return "the run's start is unknown, so nothing shows " + path + " predates the run";
  if (c->second >= code.run_start)
    return path + " was written during the run (ctime " + std::to_string(static_cast<long long>(c->second)) +
           " >= start " + std::to_string(static_cast<long long>(code.run_start)) + "): the workload's own file";
  return "";
}

std::string host_code_gap(const host_code& code, const std::set<long long>& gpu_pids) {
  if (gpu_pids.empty()) return "the host saw no process of the workload on the GPU, so no mapped object is attributed";
  if (code.read && !code.objects.empty()) return "";
  if (!code.errors.empty())
    return "the host could not read the GPU processes' /proc/<pid>/maps (" + code.errors.front() + ")";
  return "the host sampler recorded no mapped objects for the workload's GPU processes (a capture made before "
         "host maps were sampled, or the processes left between samples)";
}

}  // namespace r2r::plugins::verifier
