// SPDX-License-Identifier: MIT
// Unified diffs (the format `patch -p1` and `git apply` read) between two texts, line-based.
// After trimming the common head and tail: when both middles have as many lines (what converters
// that rewrite within lines produce) lines are paired by position, in linear time; otherwise the
// edit script is minimal (Myers). Deterministic. A change whose minimal script would need more
// than `max_edit_distance` edits is written as one replace hunk over the changed middle: still a
// correct patch, only less compact.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace r2r::plugins::converter {

struct diff_options {
  int context = 3;
  std::size_t max_edit_distance = 4000;
};

/// The diff from `before` to `after`, with headers `--- a/<path>` and `+++ b/<path>`; empty when
/// the texts are equal. Files without a final newline get "\ No newline at end of file".
std::string unified_diff(std::string_view path, std::string_view before, std::string_view after,
                         const diff_options& options = {});

}  // namespace r2r::plugins::converter
