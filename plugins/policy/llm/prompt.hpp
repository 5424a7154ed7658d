// SPDX-License-Identifier: MIT
// What r2r.policy.llm says to the model: the system prompt (the rules, the run's context and the
// knowledge base's failure classes), the first user message (the plan), the history rendered as
// tool calls and tool results, hints, and the feedback after an unusable reply. The history is kept
// within a token budget: the oldest turns are dropped first and summarised in one line each, the
// plan message and the last `keep_last_turns` turns are always kept, and kept observations are cut
// shorter if that is still not enough. Tokens are estimated as bytes / 4 (no tokenizer; the estimate
// over-counts English and JSON, which keeps the real prompt under the budget).
// Deterministic: the same request gives byte-identical messages, so replay cassettes match.
#pragma once

#include "knowledge_base.hpp"

#include <r2r/sdk/kinds/llm.hpp>
#include <r2r/sdk/kinds/policy.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::policy {

struct prompt_options {
  std::int64_t context_budget_tokens = 60000;  // system + tools + messages
  std::size_t keep_last_turns = 6;
  std::size_t max_observation_chars = 4000;  // per stream (stdout, stderr); the tail is kept
  std::int64_t max_tokens_per_call = 2048;
  std::optional<std::string> model;
  std::optional<double> temperature;
};

std::string system_prompt(const sdk::policy::propose_request& request, const knowledge_base& kb);

/// The plan as the first user message's text.
std::string plan_message(const nlohmann::json& plan);

struct rendered_history {
  std::vector<sdk::llm::message> messages;
  std::size_t dropped_turns = 0;      // summarised instead of shown
  std::size_t observation_chars = 0;  // per-stream limit finally used
  std::int64_t estimated_tokens = 0;  // of the whole request (system and tools included)
};

/// The messages of the request for `request` within opts.context_budget_tokens (see above).
rendered_history render(const sdk::policy::propose_request& request, const knowledge_base& kb,
                        const prompt_options& opts);

/// The whole first llm request of a turn: system prompt, tools, rendered messages, tool_choice any.
sdk::llm::complete_request build_request(const sdk::policy::propose_request& request, const knowledge_base& kb,
                                         const prompt_options& opts);

/// The model's reply as an assistant message of the conversation.
sdk::llm::message assistant_message(const sdk::llm::complete_response& reply);

/// The user message answering an unusable reply: an error tool_result for every tool call it made
/// and a text saying what was wrong and what to do.
sdk::llm::message feedback_message(const sdk::llm::complete_response& reply, const std::string& problem);

/// bytes / 4, rounded up, of every text, argument and schema in `r`.
std::int64_t estimate_tokens(const sdk::llm::complete_request& r);

}  // namespace r2r::plugins::policy
