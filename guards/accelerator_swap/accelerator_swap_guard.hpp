// SPDX-License-Identifier: MIT
// r2r.guard.accelerator_swap: denies actions that swap the image's ROCm accelerator stack for a
// CUDA build or a slower substitute: installing NVIDIA/CUDA wheels or using a CUDA index or the
// nvidia conda channel; uninstalling or replacing flash-attn, xformers, apex, bitsandbytes, triton,
// deepspeed or torch; switching attention to sdpa/eager; commenting out or deleting a flash-attn
// import. Commands are analysed with r2r::shell, so `&&`, pipes, `$( )` and `bash -c` hide
// nothing. A substitution listed in `allow_degradations`, or recorded for the run's mode by the
// guard policy (config `policy`, configs/guards/accelerator_swap.json; components are package
// names), is allowed with a fidelity-ledger entry; CUDA builds never are (they cannot run on ROCm).
// THREADING: the host serialises calls; the object is immutable after construction.
#pragma once

#include "package_rules.hpp"

#include <r2r/guards/guard_policy.hpp>

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/guard.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace r2r::guards {

class accelerator_swap_guard {
 public:
  struct config {
    std::vector<sdk::guard::ledger_entry> allow_degradations;  // component (normalised name), level, note
    std::vector<std::string> protected_packages{"flash-attn", "xformers",  "apex", "bitsandbytes",
                                                "triton",     "deepspeed", "torch"};
    std::size_t max_scan_bytes = 1 << 20;
    nlohmann::json policy;  // null: built-in policy (no component); object: inline; string: policy file path
  };

  /// Throws sdk::invalid_argument when a degradation level is not D0..D5 or the policy is invalid.
  accelerator_swap_guard(const config& cfg, const sdk::host& host);

  sdk::guard::decision check_action(const sdk::guard::check_request& request);
  sdk::guard::observe_response observe(const sdk::guard::observe_request& request);

  static sdk::method_table<accelerator_swap_guard> methods() { return sdk::guard::methods<accelerator_swap_guard>(); }

  /// One reason to deny. `component` is the protected package a degradation entry can unlock;
  /// empty for CUDA builds, which nothing unlocks.
  struct finding {
    std::string component;
    std::string reason;
  };

 private:
  std::optional<finding> check_command(const std::string& command) const;
  std::optional<finding> check_packages(const accel::package_operation& op) const;
  std::optional<finding> check_code(const std::string& text, bool patch) const;
  /// Lines of a pip requirements file: CUDA builds and CUDA indexes (listing torch there is normal).
  std::optional<finding> check_requirements(const std::string& lines) const;
  /// allow_degradations first, then the policy's rule for the component, else deny.
  sdk::guard::decision decide(const finding& f, const sdk::guard::check_request& request) const;

  std::vector<sdk::guard::ledger_entry> degradations_;
  std::set<std::string> protected_;
  std::size_t max_scan_bytes_;
  policy::guard_policy policy_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, accelerator_swap_guard::config& c);

}  // namespace r2r::guards
