// SPDX-License-Identifier: MIT
// Text helpers shared by the evidence parsers: line splitting, ANSI stripping, CSV fields, numbers.
// Every parser throws plugins::verifier::parse_error on input it cannot read; the message says what was
// expected, what was found and what to do. All functions are pure and thread-safe.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

class parse_error : public std::runtime_error {
 public:
  /// `tool` names the output (e.g. "rocm-smi --showpids"); the message reads
  /// "<tool>: expected <expected>, found <found>. <remedy>".
  parse_error(std::string_view tool, std::string_view expected, std::string_view found, std::string_view remedy);
};

/// Drops a leading block of "# " comment lines (the provenance header of a captured sample).
std::string_view strip_source_header(std::string_view text);
/// Removes ANSI escape sequences (ESC[...m) and their caret-notation form ("^[[3m", "^[3m").
std::string strip_ansi(std::string_view text);
std::vector<std::string_view> split_lines(std::string_view text);
std::string_view trim(std::string_view s);
/// Fields of one CSV line: comma separated, double quotes group (a doubled quote is a quote).
/// Surrounding spaces of unquoted fields are trimmed. Throws parse_error on an unclosed quote.
std::vector<std::string> split_csv(std::string_view line, std::string_view tool);
/// Fields split on runs of spaces and tabs.
std::vector<std::string_view> split_ws(std::string_view line);
/// Fields split on tabs; each trimmed.
std::vector<std::string> split_tabs(std::string_view line);
std::optional<long long> to_int(std::string_view s);
std::optional<double> to_double(std::string_view s);
/// `digits` (what a (\d+) group matched) as an int. Throws parse_error naming `tool` and `what`
/// when it does not fit: output with such a number is corrupt, not a count to trust.
int int_field(std::string_view digits, std::string_view tool, std::string_view what);
/// "7.3 GB", "58.6 KB", "1002 MiB", "2.0 MB", "0.0 B" -> bytes; nullopt for N/A or unknown units.
std::optional<double> to_bytes(std::string_view s);
bool starts_with_ci(std::string_view s, std::string_view prefix);
std::string lower(std::string_view s);
/// First 60 characters of `s`, for "found" in error messages.
std::string excerpt(std::string_view s);

}  // namespace r2r::plugins::verifier
