// SPDX-License-Identifier: MIT
// Byte scans over source text: the substring tests of the pre-scans that let a pass skip a file
// naming none of its triggers, and the newline count the passes keep line numbers with.
// string_view::find steps through every occurrence of the needle's first character (memchr then
// compare), which is slow for needles starting with a common letter. contains_at_rare, which the
// passes use, jumps between occurrences of a byte the caller picks as rare in CUDA text;
// contains (Boyer-Moore-Horspool) is the plain search its test compares it with.
// THREADING: pure functions.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>

namespace r2r::plugins::converter {

/// The number of '\n' in `text`: memchr jumps from line to line, where std::count looks at every byte.
inline std::int64_t count_newlines(std::string_view text) noexcept {
  std::int64_t n = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (nl == nullptr) break;
    ++n;
    p = static_cast<const char*>(nl) + 1;
  }
  return n;
}

inline bool contains(std::string_view text, std::string_view needle) {
  if (needle.empty()) return true;
  const std::boyer_moore_horspool_searcher search(needle.begin(), needle.end());
  return std::search(text.begin(), text.end(), search) != text.end();
}

/// contains(text, needle), given the index of a byte of the needle that is rare in the text (the
/// 'v' of "nvcuda", the '.' of "mma.h"): memchr jumps from one such byte to the next, and only
/// there is the needle compared.
inline bool contains_at_rare(std::string_view text, std::string_view needle, std::size_t rare) {
  if (needle.empty()) return true;
  if (rare >= needle.size() || text.size() < needle.size()) return false;
  const char* const base = text.data();
  std::size_t from = rare;                                      // the rare byte of a match at position 0
  const std::size_t last = text.size() - needle.size() + rare;  // ... of a match at the last position
  while (from <= last) {
    const void* hit = std::memchr(base + from, needle[rare], last + 1 - from);
    if (hit == nullptr) return false;
    const auto at = static_cast<std::size_t>(static_cast<const char*>(hit) - base);
    if (std::memcmp(base + at - rare, needle.data(), needle.size()) == 0) return true;
    from = at + 1;
  }
  return false;
}

}  // namespace r2r::plugins::converter
