// SPDX-License-Identifier: MIT
// Small string helpers shared by the fingerprint scanners.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace r2r::planning::text {

std::string_view trim(std::string_view s);
std::string lower(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool contains(std::string_view s, std::string_view needle);

/// Lines without their terminators ("\n" or "\r\n"); line i is 1-based line i+1.
std::vector<std::string_view> lines(std::string_view text);

/// Splits on whitespace, honouring single and double quotes (quotes removed). Shell-ish, no expansion.
std::vector<std::string> shell_words(std::string_view command);

/// Words split at every character that is not a letter or digit, lower-cased ("run_train.py" -> run, train, py).
std::vector<std::string> alnum_words(std::string_view s);

/// Reads a whole file; empty optional-like: returns false on error.
bool read_file(const std::string& path, std::string& out, std::size_t max_bytes);

/// Quotes a word for a POSIX shell when needed ('it'"'"'s').
std::string shell_quote(std::string_view word);

}  // namespace r2r::planning::text
