// SPDX-License-Identifier: MIT
// The actions of the execution loop as llm tools: one tool per action type (run, read_file,
// write_file, apply_patch, install, switch_image, build_kernel, run_workload, checkpoint, rollback,
// claim_success, give_up), each with the JSON Schema of its arguments, and the parser that turns a
// model reply into exactly one action or says precisely what is wrong with it.
#pragma once

#include <r2r/sdk/kinds/llm.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::policy {

/// The tools, in a fixed order (requests are deterministic, so replay cassettes match).
const std::vector<sdk::llm::tool>& action_tools();

struct parsed_reply {
  std::optional<nlohmann::json> action;  // {"type": tool name, ...arguments}
  std::string problem;                   // why there is no action (empty when there is one)
};

/// The single tool call of `reply` as an action. A reply with no tool call, several, an unknown
/// tool or arguments that break the tool's schema gives a problem instead.
parsed_reply parse_reply(const sdk::llm::complete_response& reply);

/// The problem with `arguments` for `tool`, or "" when they fit its schema.
std::string check_arguments(const std::string& tool, const nlohmann::json& arguments);

}  // namespace r2r::plugins::policy
