// SPDX-License-Identifier: MIT
// The sectioned stdout of scripts/collect.sh ("@@R2R-<fence> <name> [<args>]" lines after the
// "@@R2R-FENCE <fence>" first line) and the GPU process samples it recorded. Pure functions.
#pragma once

#include <r2r/verify/gpu_process.hpp>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

struct bundle_section {
  std::string name;
  std::string file;               // the first argument after the name
  std::vector<std::string> args;  // every argument after the name
  std::string body;
};
/// Sections in order. Parsing stops at the "log" section, whose body is the rest of the output,
/// so nothing the workload printed can open another section.
std::vector<bundle_section> parse_bundle(std::string_view output, std::string_view nonce);

struct process_sample {
  int index = -1;
  std::set<long long> tree;             // pids of the workload's process tree at that moment
  std::map<long long, long long> uids;  // pid -> uid, where the tree line gave "pid:uid"
  std::string tool;                     // rocm-smi | amd-smi | nvidia-smi
  std::vector<gpu_process> processes;
  std::string error;  // the tool's output could not be parsed
};
/// "### sample" blocks. A tool output that does not parse is kept with `error` set.
std::vector<process_sample> parse_samples(std::string_view body);

}  // namespace r2r::plugins::verifier
