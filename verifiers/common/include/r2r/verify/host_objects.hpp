// SPDX-License-Identifier: MIT
// The shared objects the workload's GPU processes mapped, as the host saw them: the union of the
// host sampler's /proc/<pid>/maps records (capture.hpp host_process::objects) over the host pids
// that gpu_share attributed to the workload and saw holding the GPU. The kernel writes
// /proc/<pid>/maps, so a path here was really mapped by a process that ran on the GPU; this is what
// lets accelerator_components tie a planned build's shared object to the run without trusting the
// in-process probe. Pure functions.
#pragma once

#include <r2r/verify/capture.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::verifier {

struct host_code {
  bool read = false;                         // the maps of at least one GPU process were read
  std::map<std::string, long long> objects;  // path -> the first host pid seen mapping it
  std::map<std::string, double> ctimes;      // path -> ctime (unix seconds); absent or -1: unknown
  double run_start = 0;                      // the workload's start (collector clock); 0: unknown
  std::vector<std::string> errors;           // maps that could not be read, per pid
};

/// Objects of the processes in `gpu_pids` (host pids) over every sample.
host_code workload_objects(const std::vector<host_sample>& samples, const std::set<long long>& gpu_pids);

/// Why the object at `path` cannot stand for a build made before the run, or "" when it can: its
/// ctime must be known and before run_start (a file written during the run is the workload's own).
std::string object_written_before_run(const host_code& code, const std::string& path);

/// Why `code` cannot attribute anything ("" when it can): no GPU process, or no maps read.
std::string host_code_gap(const host_code& code, const std::set<long long>& gpu_pids);

}  // namespace r2r::plugins::verifier
