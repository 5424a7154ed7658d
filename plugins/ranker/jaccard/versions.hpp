// SPDX-License-Identifier: MIT
// Dotted version numbers and PEP 440-style specifier sets, enough for Python and ROCm versions:
// operators >=, >, <=, <, ==, != (with a trailing .* wildcard) and ~=, comma-separated.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::ranker {

using version = std::vector<int>;

/// "3.10.2" -> {3,10,2}; a trailing non-numeric suffix on the last part ("0.4.9.post2") is
/// ignored. Empty optional when the text does not start with a number.
std::optional<version> parse_version(std::string_view text);

/// Compares after padding the shorter with zeros: negative, zero or positive.
int compare_versions(const version& a, const version& b);

/// Whether `v` satisfies every clause of `spec`. Empty optional when a clause is malformed.
/// An empty spec allows everything.
std::optional<bool> spec_allows(std::string_view spec, const version& v);

}  // namespace r2r::plugins::ranker
