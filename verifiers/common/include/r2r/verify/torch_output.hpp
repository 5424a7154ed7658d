// SPDX-License-Identifier: MIT
// Facts about a PyTorch build and its devices, read from what torch prints: collect_env output,
// _CudaDeviceProperties reprs, REPL / sanity-check transcripts, get_arch_list() lists, hipDevice
// name listings, and the repo2rocm probe's JSON (see scripts/sitecustomize.py). Also the kernel
// rows of a torch.profiler key_averages() table.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

struct torch_facts {
  std::string version;  // torch.__version__
  std::string hip;      // torch.version.hip / "ROCM used to build PyTorch" ("" when N/A or None)
  std::string cuda;     // torch.version.cuda / "CUDA used to build PyTorch"
  std::optional<bool> is_available;
  int device_count = -1;
  std::vector<std::string> device_names;
  std::vector<std::string> archs;      // gcnArchName values, "gfx942:sramecc+:xnack-"
  std::vector<std::string> arch_list;  // torch.cuda.get_arch_list() entries (all lists, in order)
};
/// Throws parse_error when nothing torch-related is recognised.
torch_facts parse_torch_text(std::string_view text);

struct profiler_row {
  std::string name;
  long long calls = 0;
  bool device = false;  // Self CUDA time > 0: a device kernel (or device-side activity)
};
/// Rows of a torch.profiler key_averages().table(); names may be cut with "...".
std::vector<profiler_row> parse_profiler_table(std::string_view text);

struct probe_device {
  int index = -1;
  std::string name, arch;
  double max_memory_allocated = 0;
};
/// The JSON one probe-<pid>.json holds.
struct probe_report {
  long long pid = -1, ppid = -1;
  bool torch_loaded = false;
  std::string torch_version, hip, cuda;
  bool is_available = false, initialized = false;
  std::vector<probe_device> devices;
  std::optional<std::map<std::string, long long>> kernels;  // nullopt: profiling was off or failed
  std::string profiler_error, probe_error;
  double allocated_bytes() const;
};
/// Throws parse_error on invalid JSON or a document without "pid".
probe_report parse_probe_json(std::string_view text);

}  // namespace r2r::plugins::verifier
