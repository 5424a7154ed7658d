// SPDX-License-Identifier: MIT
// The first difference between two JSON documents, for messages a person reads: where (a JSON
// pointer, and for strings the character offset) and what each side holds there, shortened to a
// window around the difference. Objects are walked in key order, arrays by index.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace r2r::plugins::llm {

struct json_difference {
  std::string pointer;      // "/messages/2/content/0/text"; "" for the root
  std::string description;  // "character 118: expected \"...\" found \"...\"" and the like
};

/// nullopt when the documents are equal. `expected_name` and `found_name` label the two sides in
/// the description ("recorded", "this run").
std::optional<json_difference> first_difference(const nlohmann::json& expected, const nlohmann::json& found,
                                                const std::string& expected_name = "expected",
                                                const std::string& found_name = "found");

/// Length of the common prefix of the two documents' compact serialisations: a cheap measure of
/// how far two requests agree, used to pick the nearest candidate for a message.
std::size_t common_prefix_length(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace r2r::plugins::llm
