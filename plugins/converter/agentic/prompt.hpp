// SPDX-License-Identifier: MIT
// The words the agentic rewrite says to the model: the system prompt (rules and the answer format
// of region_edit.hpp), the first request for one file (its hazards and the numbered lines of each
// region, nothing else of the file), and the feedback after an attempt that was not accepted.
// Deterministic: the same inputs give byte-identical text, so replay cassettes match.
#pragma once

#include "region_edit.hpp"

#include <r2r/sdk/kinds/converter.hpp>
#include <r2r/sdk/kinds/llm.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::converter::agentic {

std::string system_prompt();

std::string first_message(std::string_view path, std::string_view text,
                          const std::vector<sdk::converter::hazard>& hazards, const std::vector<line_range>& regions,
                          const std::vector<std::string>& archs);

/// The first llm request for one file: system_prompt(), first_message() and max_tokens.
sdk::llm::complete_request first_request(std::string_view path, std::string_view text,
                                         const std::vector<sdk::converter::hazard>& hazards,
                                         const std::vector<line_range>& regions, const std::vector<std::string>& archs,
                                         std::int64_t max_tokens);

/// After an answer that could not be applied, was refused, or did not compile. `problem` is the
/// reason (the parse problem, the degradation, or the compiler output).
std::string feedback_message(std::string_view kind, std::string_view problem);

}  // namespace r2r::plugins::converter::agentic
