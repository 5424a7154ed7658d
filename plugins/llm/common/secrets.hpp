// SPDX-License-Identifier: MIT
// API keys and their redaction. A key is read from the environment variable a config names, at
// the moment it is needed, and lives only in the outgoing request's headers. Everything that leaves
// a plugin as text (error messages, log lines, cassettes) goes through a redactor first, so a key a
// server echoes back, or one a model or tool printed, is replaced by "[REDACTED]".
// THREADING: a redactor is immutable after construction; share it freely.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::llm {

inline constexpr std::string_view redacted_marker = "[REDACTED]";

/// The value of environment variable `name`, or nullopt when it is unset or empty.
std::optional<std::string> read_secret_env(const std::string& name);

class redactor {
 public:
  /// Literal values shorter than this are not treated as secrets (they would blank ordinary text).
  static constexpr std::size_t min_secret_length = 8;

  redactor() = default;

  /// Also redacts the value of each named environment variable, read now (unset ones are skipped).
  void add_env(const std::vector<std::string>& names);
  /// Redacts this literal value (ignored when shorter than min_secret_length).
  void add_literal(std::string value);
  /// Redacts matches of an ECMAScript regex; throws sdk::invalid_argument when it does not compile.
  void add_pattern(const std::string& pattern);
  /// Patterns for common key formats: "sk-ant-...", "sk-...", "Bearer ...", "hf_...", "ghp_...".
  void add_default_patterns();

  /// `text` with every secret replaced by [REDACTED].
  std::string apply(std::string_view text) const;
  /// A copy of `value` with every string (not the keys) redacted.
  nlohmann::json apply_json(const nlohmann::json& value) const;
  /// True when apply() would change `text`.
  bool contains_secret(std::string_view text) const;

 private:
  std::vector<std::string> literals_;
  std::vector<std::regex> patterns_;
};

}  // namespace r2r::plugins::llm
