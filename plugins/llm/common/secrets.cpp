// SPDX-License-Identifier: MIT
#include "secrets.hpp"

#include <r2r/sdk/error.hpp>

#include <algorithm>
#include <cstdlib>

namespace r2r::plugins::llm {

std::optional<std::string> read_secret_env(const std::string& name) {
  if (name.empty()) return std::nullopt;
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || value[0] == '\0') return std::nullopt;
  return std::string(value);
}

void redactor::add_env(const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (auto value = read_secret_env(name)) add_literal(std::move(*value));
  }
}

void redactor::add_literal(std::string value) {
  if (value.size() < min_secret_length) return;
  if (std::find(literals_.begin(), literals_.end(), value) != literals_.end()) return;
  literals_.push_back(std::move(value));
  // Longest first, so a key that contains another is replaced whole.
  std::sort(literals_.begin(), literals_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

void redactor::add_pattern(const std::string& pattern) {
  try {
    patterns_.emplace_back(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw sdk::invalid_argument("redact pattern '" + pattern + "' is not a valid ECMAScript regex: " + e.what());
  }
}

void redactor::add_default_patterns() {
  // Bounded character classes only: they never match a quote or a backslash, and they keep
  // std::regex's recursion shallow on long inputs.
  add_pattern(R"(sk-ant-[A-Za-z0-9_-]{16,})");
  add_pattern(R"(\bsk-[A-Za-z0-9_-]{20,})");
  add_pattern(R"([Bb]earer [A-Za-z0-9._~+/=-]{16,})");
  add_pattern(R"(\bhf_[A-Za-z0-9]{20,})");
  add_pattern(R"(\bgh[pousr]_[A-Za-z0-9]{20,})");
}

std::string redactor::apply(std::string_view text) const {
  std::string out(text);
  for (const auto& secret : literals_) {
    for (auto pos = out.find(secret); pos != std::string::npos; pos = out.find(secret, pos + redacted_marker.size())) {
      out.replace(pos, secret.size(), redacted_marker);
    }
  }
  for (const auto& pattern : patterns_) {
    if (std::regex_search(out, pattern)) out = std::regex_replace(out, pattern, std::string(redacted_marker));
  }
  return out;
}

nlohmann::json redactor::apply_json(const nlohmann::json& value) const {
  if (value.is_string()) return apply(value.get_ref<const std::string&>());
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(apply_json(item));
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it) out[it.key()] = apply_json(it.value());
    return out;
  }
  return value;
}

bool redactor::contains_secret(std::string_view text) const {
  for (const auto& secret : literals_)
    if (text.find(secret) != std::string_view::npos) return true;
  const std::string copy(text);
  for (const auto& pattern : patterns_)
    if (std::regex_search(copy, pattern)) return true;
  return false;
}

}  // namespace r2r::plugins::llm
