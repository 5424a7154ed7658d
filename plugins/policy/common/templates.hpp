// SPDX-License-Identifier: MIT
// `{name}` templates of the failure knowledge base (configs/knowledge/errors.json).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace r2r::plugins::policy {

/// Named values a template may use: captures, collected and derived values, and the context
/// (arch, command, action_type, kernel_build_command).
using variables = std::map<std::string, std::string>;

/// Replaces every `{name}` in `text`. A name that is unknown or empty is left as written and sets
/// `*missing` (when given); text without braces is returned unchanged.
std::string fill(const std::string& text, const variables& vars, bool* missing = nullptr);

/// fill() applied to every string inside `tmpl` (object values and array items; keys unchanged).
nlohmann::json fill(const nlohmann::json& tmpl, const variables& vars, bool* missing = nullptr);

}  // namespace r2r::plugins::policy
