// SPDX-License-Identifier: MIT
// r2r.policy.playbook: follows the plan without a model. Each turn it folds the history into its
// progress (progress.hpp) and proposes one action:
//  - the next step (install steps, extra steps, then run_workload with the plan's workload);
//  - after a failed step, the first fix that applies and was not tried for that failure signature:
//    knowledge-base fixes (errors.json) of the matching classes, then fixes carried by hints
//    (causal memory, operator); after the fix the step runs again (retries_step fixes are the step);
//  - give_up with the step, the signature, the fixes tried and the class's advice when no fix is
//    left, when a guard denied a step, or when a step failed more than max_retries_per_step times;
//  - claim_success once the workload exited 0; if a guard denies the claim (the verifier has not
//    passed yet), give_up with reason "workload_completed_awaiting_verifier: ...": the run's
//    workload is done and the verdict belongs to the verifier stage.
// Fixes flagged with a degradation level are only proposed when allow_degradation_fixes is set,
// and guards still judge them. The proposal depends only on the plan, the history, the hints of
// the request and the config (the `state` is read only when the history was trimmed).
// THREADING: the host serialises calls; the instance holds only its immutable config.
#pragma once

#include "knowledge_base.hpp"
#include "progress.hpp"
#include "steps.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/policy.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::policy {

class playbook_policy {
 public:
  struct config {
    int max_retries_per_step = 3;  // failed runs of a step after its first failure before giving up
    std::vector<extra_step> extra_steps;
    std::string knowledge_file;  // empty: the built-in configs/knowledge/errors.json
    bool allow_degradation_fixes = false;
    bool use_hints = true;
  };

  /// Throws sdk::invalid_argument for a bad config or an unreadable knowledge file.
  playbook_policy(const config& cfg, const sdk::host& host);

  /// Throws sdk::invalid_argument when the plan has no workload command.
  sdk::policy::proposal propose(const sdk::policy::propose_request& request);

  static sdk::method_table<playbook_policy> methods() { return sdk::policy::methods<playbook_policy>(); }

 private:
  config config_;
  std::optional<knowledge_base> own_kb_;  // set when knowledge_file is given
  const knowledge_base* kb_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, playbook_policy::config& c);

}  // namespace r2r::plugins::policy
