// SPDX-License-Identifier: MIT
// r2r.guard.accelerator-swap: denies actions that swap the image's ROCm accelerator stack for a
// CUDA build or a slower substitute: installing NVIDIA/CUDA wheels or using a CUDA index or the
// nvidia conda channel; uninstalling or replacing flash-attn, xformers, apex, bitsandbytes, triton,
// deepspeed or torch; switching attention to sdpa/eager; commenting out or deleting a flash-attn
// import; setting HSA_OVERRIDE_GFX_VERSION (policy `forbidden_environment`); and, recorded as
// degradations, switches that turn an accelerator component off (policy `switches`). Commands of
// every action type are read through command_view (scripts the agent wrote included; computed
// commands denied), so `&&`, pipes, `$( )`, `bash -c` and `sh x.sh` hide nothing. A ROCm build of
// a protected package from the ROCm index of the plan's ROCm version is allowed at D0. A substitution listed in
// `allow_degradations`, or recorded for the run's mode by the guard policy (config `policy`,
// configs/guards/accelerator_swap.json; components are package names), is allowed with a fidelity-ledger entry; CUDA
// builds never are (they cannot run on ROCm). THREADING: the host serialises calls; the object is immutable after
// construction.
#pragma once

#include "package_rules.hpp"
#include "switch_rules.hpp"

#include <r2r/guards/command_view.hpp>
#include <r2r/guards/guard_policy.hpp>
#include <r2r/guards/known_files.hpp>

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/guard.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::guard {

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
    std::string subject;  // for the ledger entry; the component when empty
    std::string unlock;   // a specific unlock for a deny; the generic one when empty
  };

 private:
  /// Findings of every command of a view: package operations, attention and import edits, switches.
  std::vector<finding> check_commands(const command_view& view, const sdk::guard::check_request& request) const;
  std::optional<finding> check_packages(const accel::package_operation& op,
                                        const sdk::guard::check_request& request) const;
  std::optional<finding> check_code(const std::string& text, bool patch) const;
  /// Lines of a pip requirements file: CUDA builds and CUDA indexes (listing torch there is normal).
  std::optional<finding> check_requirements(const std::string& lines) const;
  /// Lines added to a package-manager config (pip.conf, uv.toml, pyproject.toml, .condarc, ...):
  /// CUDA indexes and the nvidia channel.
  std::optional<finding> check_source_config(const std::string& path, const std::string& added) const;
  /// The findings of writing `after` over `before` into `path` (shell files are judged as commands).
  std::vector<finding> check_file(const std::string& path, const std::optional<std::string>& before,
                                  const std::string& after, const sdk::guard::check_request& request) const;
  /// Environment switches set in `environment_text`, config switches turned off in `setting_lines`.
  std::vector<finding> switch_findings(const std::string& environment_text,
                                       const std::vector<std::string>& setting_lines) const;
  /// A deny when `text` sets a variable of the policy's forbidden_environment.
  std::optional<sdk::guard::decision> deny_forbidden(const std::string& text, const std::string& where) const;
  /// allow_degradations first, then the policy's rule for the component, else deny.
  sdk::guard::decision decide(const finding& f, const sdk::guard::check_request& request) const;
  /// Every finding decided: the first deny, else allow with all ledger entries.
  sdk::guard::decision combine(const std::vector<finding>& findings, const sdk::guard::check_request& request) const;

  std::vector<sdk::guard::ledger_entry> degradations_;
  std::set<std::string> protected_;
  std::size_t max_scan_bytes_;
  policy::guard_policy policy_;
  std::shared_ptr<const accel::switch_matcher> switches_;  // policy_'s switch and forbidden lists, compiled
  known_files files_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, accelerator_swap_guard::config& c);

}  // namespace r2r::plugins::guard
