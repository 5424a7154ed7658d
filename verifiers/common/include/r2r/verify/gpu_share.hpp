// SPDX-License-Identifier: MIT
// Attribution of host-side GPU samples to the workload, and the share of the workload's wall time
// the GPU was busy for it. A host process belongs to the workload when its pid namespace is the
// collector's, its innermost pid (NSpid) is in a process tree the collector recorded for the
// workload, and its host uid is not 0. A sample is "active" when an attributed process shows SM utilisation above zero
// in nvidia-smi pmon; without pmon rows, when an attributed process holds the GPU and the GPU's utilization.gpu
// (NVIDIA) or gpu_busy_percent (AMD, KFD) is above zero. Pure functions.
#pragma once

#include <r2r/verify/capture.hpp>

#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::verifier {

struct workload_identity {
  std::string pidns;         // the collector's readlink /proc/self/ns/pid
  std::set<long long> pids;  // every pid of the workload's trees, in that namespace
};

struct gpu_share {
  int samples = 0;     // host samples inside the workload's run
  int attributed = 0;  // samples listing a workload process on the GPU
  int active = 0;      // samples with the GPU busy for a workload process
  double share = 0;    // active / samples
  std::string source;  // how "active" was decided, e.g. "nvidia-smi pmon sm%"
  std::set<long long> host_pids;
  double max_vram_bytes = 0;
  std::vector<std::string> problems;  // unparseable tool output (the samples still count)
};

/// Samples with t in [t0 - slack, t1 + slack] count; t0 >= t1 counts every sample.
gpu_share measure_gpu_share(const std::vector<host_sample>& samples, const workload_identity& who, double t0, double t1,
                            double slack_s = 1.5);

}  // namespace r2r::plugins::verifier
