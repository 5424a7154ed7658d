// SPDX-License-Identifier: MIT
#include <r2r/convert/text_check.hpp>

#include <algorithm>
#include <cstring>

namespace r2r::plugins::converter {

std::size_t first_invalid_utf8(std::string_view bytes) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  while (i < n) {
    // Fast path: eight ASCII bytes at a time.
    if (i + 8 <= n) {
      std::uint64_t word;
      std::memcpy(&word, p + i, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    std::uint32_t min;
    std::uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000, cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = cp << 6 | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;  // overlong, range, surrogate
    i += len;
  }
  return std::string_view::npos;
}

std::pair<std::int64_t, std::int64_t> line_column(std::string_view text, std::size_t offset) noexcept {
  offset = std::min(offset, text.size());
  std::int64_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<std::int64_t>(offset - line_start + 1)};
}

std::optional<text_problem> check_text(std::string_view bytes, std::size_t max_bytes) {
  if (bytes.size() > max_bytes) {
    return text_problem{"too_large", 0, 0,
                        "file is " + std::to_string(bytes.size()) + " bytes, above the limit of " +
                            std::to_string(max_bytes) +
                            " bytes; it was not converted. Raise max_file_bytes in the converter's config if it "
                            "really is source code, or exclude it"};
  }
  if (const void* nul = std::memchr(bytes.data(), '\0', bytes.size())) {
    const auto offset = static_cast<std::size_t>(static_cast<const char*>(nul) - bytes.data());
    const auto [line, column] = line_column(bytes, offset);
    return text_problem{"binary", line, column,
                        "file contains a NUL byte at offset " + std::to_string(offset) +
                            ", so it is binary, not source text; it was not converted. Remove it from the "
                            "conversion set or give it a non-source extension"};
  }
  if (const std::size_t bad = first_invalid_utf8(bytes); bad != std::string_view::npos) {
    const auto [line, column] = line_column(bytes, bad);
    char hex[8];
    static const char digits[] = "0123456789abcdef";
    const auto byte = static_cast<unsigned char>(bytes[bad]);
    hex[0] = '0', hex[1] = 'x', hex[2] = digits[byte >> 4], hex[3] = digits[byte & 15], hex[4] = '\0';
    return text_problem{"invalid_utf8", line, column,
                        std::string("expected UTF-8 text, found the byte ") + hex +
                            " that starts no valid UTF-8 "
                            "sequence; it was not converted. Re-encode the file as UTF-8 (for example "
                            "`iconv -f latin1 -t utf-8`)"};
  }
  return std::nullopt;
}

}  // namespace r2r::plugins::converter
