// SPDX-License-Identifier: MIT
// r2r.guard.success-claim: success is what the verifier says, never what a command prints.
//  - claim_success is denied unless the executor reports context.verifier_ran and
//    context.verifier_passed for the current workspace state;
//  - a command that prints, stores or builds a success marker (ROCM_ENV_VERIFIED,
//    PAPER_RESULT_REPRODUCED, ...) is denied: `echo`, `printf`, `python -c print(...)`,
//    `workload && echo ...`, `export M=...`; only readers (grep, rg, ...) may name a marker;
//  - write_file / apply_patch adding a marker is denied, and the path is remembered so a later
//    `cat`/`head`/`tail`/`tee`/`<` of that file is denied too;
//  - observe() records evidence when an action's output carries a marker, which is never proof.
// Commands are read through r2r::shell::analyze (`&&`, pipes, `$( )`, `bash -c`, wrappers).
// THREADING: the host serialises calls; the set of remembered marker files is the only state.
#pragma once

#include <r2r/guards/command_view.hpp>
#include <r2r/guards/known_files.hpp>
#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/guard.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::guard {

class success_claim_guard {
 public:
  struct config {
    std::vector<std::string> markers{"ROCM_ENV_VERIFIED", "PAPER_RESULT_REPRODUCED", "PAPER_RESULT_NOT_REPRODUCED"};
    std::vector<std::string> readers{"grep", "egrep", "fgrep", "rg", "ag", "ack"};
  };

  /// Throws sdk::invalid_argument when `markers` is empty or holds an empty string.
  success_claim_guard(const config& cfg, const sdk::host& host);

  sdk::guard::decision check_action(const sdk::guard::check_request& request);
  sdk::guard::observe_response observe(const sdk::guard::observe_request& request);

  static sdk::method_table<success_claim_guard> methods() { return sdk::guard::methods<success_claim_guard>(); }

 private:
  /// The first marker found in `text`, or nullopt.
  std::optional<std::string> marker_in(const std::string& text) const;
  /// Why `command` forges a marker, or nullopt.
  std::optional<std::string> forged_by(const std::string& command) const;
  bool is_marker_file(const std::string& path) const;
  sdk::guard::decision deny_forgery(const std::string& why, const std::string& action_type) const;

  std::vector<std::string> markers_;
  std::set<std::string> readers_;
  std::set<std::string> marker_files_;  // normalised paths written with a marker
  known_files files_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, success_claim_guard::config& c);

}  // namespace r2r::plugins::guard
