// SPDX-License-Identifier: MIT
// Checks that bytes are a text file the converters can handle: not larger than a limit, no NUL
// bytes (binary), valid UTF-8. The first problem is reported with its line and column, so a bad
// file is reported per file and never stops a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace r2r::plugins::converter {

struct text_problem {
  std::string kind;         // "too_large", "binary", "invalid_utf8"
  std::int64_t line = 0;    // 1-based; 0 when not about one position
  std::int64_t column = 0;  // 1-based byte column
  std::string message;      // what was expected, what was found, what to do
};

/// nullopt when `bytes` is acceptable text.
std::optional<text_problem> check_text(std::string_view bytes, std::size_t max_bytes);

/// Offset of the first byte that is not part of a valid UTF-8 sequence, or npos.
std::size_t first_invalid_utf8(std::string_view bytes) noexcept;

/// 1-based line and byte column of `offset` in `text`.
std::pair<std::int64_t, std::int64_t> line_column(std::string_view text, std::size_t offset) noexcept;

}  // namespace r2r::plugins::converter
