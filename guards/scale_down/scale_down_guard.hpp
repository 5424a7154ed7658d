// SPDX-License-Identifier: MIT
// r2r.guard.scale-down: the experiment runs at the scale the plan chose. It compares
//  - run_workload / run commands that start the plan's workload (same script or module) with
//    context.plan.workload.command: fewer epochs/steps/iterations, a smaller batch, a dataset
//    limit or slice, debug switches (`--fast_dev_run`, `--debug`), a smaller model
//    (`gpt2-xl` -> `gpt2`), and a run_workload of another script;
//  - edits of config files (write_file, apply_patch, `sed -i`/`perl -pi` substitutions) that
//    lower `epochs`, `num_train_epochs`, `max_steps`, `batch_size`, ... or add dataset limits.
// Each finding goes through the guard policy (configs/guards/scale_down.json): by default Mode 1
// allows it with a D5 ledger entry and Mode 2 denies it.
// THREADING: the host serialises calls; the known file contents are the only state.
#pragma once

#include <r2r/guards/command_view.hpp>
#include <r2r/guards/guard_policy.hpp>
#include <r2r/guards/known_files.hpp>
#include <r2r/guards/text_change.hpp>
#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/guard.hpp>
#include <r2r/support/shell.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace r2r::plugins::guard {

class scale_down_guard {
 public:
  struct config {
    nlohmann::json policy;  // null: built-in policy; object: inline; string: policy file path
    std::size_t max_scan_bytes = 1 << 20;
  };

  /// Throws sdk::invalid_argument when the policy cannot be read or is invalid.
  scale_down_guard(const config& cfg, const sdk::host& host);

  sdk::guard::decision check_action(const sdk::guard::check_request& request);
  /// Remembers file contents shown by read_file and written by write_file, for later comparisons.
  sdk::guard::observe_response observe(const sdk::guard::observe_request& request);

  static sdk::method_table<scale_down_guard> methods() { return sdk::guard::methods<scale_down_guard>(); }

 private:
  std::vector<policy::finding> command_findings(const std::string& command, const nlohmann::json& plan,
                                                bool workload) const;
  std::vector<policy::finding> edit_findings(const file_change& change, bool baseline_known) const;
  std::vector<policy::finding> substitution_findings(const shell::simple_command& cmd) const;

  policy::guard_policy policy_;
  known_files files_;
  std::size_t max_scan_bytes_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, scale_down_guard::config& c);

}  // namespace r2r::plugins::guard
