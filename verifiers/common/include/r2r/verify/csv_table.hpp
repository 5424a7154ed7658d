// SPDX-License-Identifier: MIT
// A CSV file read into a header and rows, with columns found by name. Used by the rocprof,
// rocm-smi --csv, amd-smi --csv and nvidia-smi --format=csv parsers. Pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

struct csv_table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  /// Index of the first column whose name equals one of `names` (exact, then case-insensitive).
  std::optional<std::size_t> column(std::initializer_list<std::string_view> names) const;
};

/// Parses the first CSV block of `text` (blank lines and "# " comment lines are skipped; the
/// block ends at the first line that is not CSV-shaped after the header). Every row must have
/// the header's field count. Throws parse_error naming `tool` on an empty input, a missing
/// header or a row with the wrong field count (a truncated capture).
csv_table parse_csv_table(std::string_view text, std::string_view tool);

}  // namespace r2r::plugins::verifier
