// SPDX-License-Identifier: MIT
// r2r.policy.llm: a model proposes each action through the pipeline's `llm` service (tool calls;
// tools.hpp). Each turn builds one request from the plan, the history, the hints and the knowledge
// base (prompt.hpp) within the context budget, and turns the reply's single tool call into the
// action. A reply without a usable tool call gets a feedback message (what was wrong) and the model
// answers again in the same turn; after max_invalid_replies unusable replies the turn is give_up with
// the last problem. The response's usage sums every call of the turn. The policy keeps nothing
// between turns: its `state` only counts the replies of the turn, for the trajectory.
// THREADING: the host serialises calls; the instance holds only its immutable config.
#pragma once

#include "knowledge_base.hpp"
#include "prompt.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/policy.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace r2r::plugins::policy {

class llm_policy {
 public:
  struct config {
    std::string llm_service = "llm";
    int max_invalid_replies = 2;
    prompt_options prompt;
    std::string knowledge_file;  // empty: the built-in configs/knowledge/errors.json
  };

  /// Throws sdk::invalid_argument for a bad config or an unreadable knowledge file.
  llm_policy(const config& cfg, const sdk::host& host);

  /// Throws sdk::unavailable when the llm service is missing, sdk::cancelled when cancelled.
  sdk::policy::proposal propose(const sdk::policy::propose_request& request, sdk::call_context& ctx);

  static sdk::method_table<llm_policy> methods() { return sdk::policy::methods<llm_policy>(); }

 private:
  config config_;
  std::optional<knowledge_base> own_kb_;
  const knowledge_base* kb_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, llm_policy::config& c);

}  // namespace r2r::plugins::policy
