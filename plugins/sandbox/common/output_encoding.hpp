// SPDX-License-Identifier: MIT
// Makes raw command output fit a JSON string without losing bytes: valid UTF-8 is passed as is,
// anything else is base64-encoded and labelled so the caller can decode it.
#pragma once

#include <string>
#include <string_view>

namespace r2r::plugins::sandbox {

bool is_valid_utf8(std::string_view bytes) noexcept;
std::string base64_encode(std::string_view bytes);
/// Throws std::invalid_argument on a character outside the base64 alphabet.
std::string base64_decode(std::string_view text);

struct encoded_text {
  std::string text;
  std::string encoding;  // "utf-8" or "base64"
};
encoded_text encode_output(std::string bytes);

}  // namespace r2r::plugins::sandbox
