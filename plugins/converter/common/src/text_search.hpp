// SPDX-License-Identifier: MIT
// Substring tests for the pre-scans that let a pass skip a file naming none of its triggers.
// string_view::find steps through every occurrence of the needle's first character (memchr then
// compare), which is slow for needles starting with a common letter; Boyer-Moore-Horspool skips
// up to the needle's length per step.
// THREADING: pure functions.
#pragma once

#include <algorithm>
#include <functional>
#include <string_view>

namespace r2r::plugins::converter {

inline bool contains(std::string_view text, std::string_view needle) {
  if (needle.empty()) return true;
  const std::boyer_moore_horspool_searcher search(needle.begin(), needle.end());
  return std::search(text.begin(), text.end(), search) != text.end();
}

}  // namespace r2r::plugins::converter
