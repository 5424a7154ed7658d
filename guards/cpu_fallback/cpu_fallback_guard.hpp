// SPDX-License-Identifier: MIT
// r2r.guard.cpu-fallback: denies actions whose command or edited code hides the GPU or selects the
// CPU (`CUDA_VISIBLE_DEVICES=`, `HIP_VISIBLE_DEVICES=-1`, `--cpu`, `--device cpu`,
// `device="cpu"`, `torch.cuda.is_available = lambda: False`, ...), and records evidence when a
// command's output says the workload fell back to the CPU. A CPU run is never a ROCm reproduction.
// THREADING: the host serialises calls; the object is immutable after construction.
#pragma once

#include <r2r/guards/command_view.hpp>
#include <r2r/guards/known_files.hpp>
#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/guard.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::guard {

class cpu_fallback_guard {
 public:
  struct config {
    std::vector<std::string> extra_patterns;
    std::vector<std::string> action_types{"run", "run_workload", "build_kernel", "write_file", "apply_patch"};
    std::size_t max_scan_bytes = 1 << 20;
  };

  /// Throws sdk::invalid_argument when an extra pattern is not a valid regular expression.
  cpu_fallback_guard(const config& cfg, const sdk::host& host);

  sdk::guard::decision check_action(const sdk::guard::check_request& request);
  sdk::guard::observe_response observe(const sdk::guard::observe_request& request);

  static sdk::method_table<cpu_fallback_guard> methods() { return sdk::guard::methods<cpu_fallback_guard>(); }

  /// One pattern of the guard and what a match means.
  struct rule {
    std::string name;  // what the pattern means, for the reason
    std::regex pattern;
  };

 private:
  /// The text of an action that could select the CPU: the command, new file content, or added lines.
  std::string scanned_text(const sdk::guard::action& action) const;
  /// Whether `type` is checked: listed in action_types; the command-running types (run,
  /// run_workload, build_kernel, install) count as one, so any of them listed checks them all.
  bool applies_to(const std::string& type) const;

  std::vector<rule> rules_;
  std::vector<rule> output_signals_;
  std::set<std::string> action_types_;
  std::size_t max_scan_bytes_;
  known_files files_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, cpu_fallback_guard::config& c);

}  // namespace r2r::plugins::guard
