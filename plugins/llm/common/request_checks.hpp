// SPDX-License-Identifier: MIT
// Rules of a normalised llm request that its JSON Schema cannot express, checked before anything
// is sent, so a malformed conversation fails here with a JSON pointer instead of as a provider 400:
//   - the first message is from the user;
//   - tool_call blocks appear only in assistant messages, tool_result blocks only in user messages;
//   - every tool_result answers a tool_call of the assistant message just before it, and every
//     tool_call of an assistant message that is followed by a user message is answered there;
//   - tool names are unique, and tool_choice "tool" names one of them;
//   - tool_call ids are unique.
#pragma once

#include <r2r/sdk/kinds/llm.hpp>

namespace r2r::plugins::llm {

/// Throws llm_error invalid_request (status R2R_ERR_INVALID_ARGUMENT) naming the first broken rule
/// with its JSON pointer, what was expected and what to do.
void check_request(const sdk::llm::complete_request& request);

}  // namespace r2r::plugins::llm
