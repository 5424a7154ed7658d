// SPDX-License-Identifier: MIT
// The lines an edit removes and adds, per file, from a unified diff or from old and new file
// content. Guards classify edits by these lines; line order is not kept (a moved line is neither).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::guard {

struct file_change {
  std::string path;                  // the new path ("b/" stripped); the old one for a deleted file
  bool deleted = false;              // +++ /dev/null
  std::vector<std::string> removed;  // without the leading '-'
  std::vector<std::string> added;    // without the leading '+'
  std::vector<std::string> context;  // unchanged lines shown by the diff
};

/// The files of a unified diff (`--- a/x` / `+++ b/x` headers, `@@` hunks). Text before the first
/// header is ignored; a hunk line without a header is assigned to a file with an empty path.
std::vector<file_change> parse_unified_diff(const std::string& patch);

/// The change from `before` to `after` of `path` as multisets of lines; with no `before`, every
/// line of `after` is added.
file_change line_delta(const std::string& path, const std::optional<std::string>& before, const std::string& after);

/// The lines of `text`.
std::vector<std::string> split_lines(const std::string& text);

}  // namespace r2r::plugins::guard
