// SPDX-License-Identifier: MIT
// UTF-8 hygiene for text that ends up in plan.json (nlohmann::json refuses to dump invalid UTF-8):
// text sources are repaired on load and every clipped string is cut on a character boundary.
#pragma once

#include <string>
#include <string_view>

namespace r2r::paper::detail {

/// `text` with every byte that does not start or continue a well-formed UTF-8 sequence (overlong
/// forms, surrogates and code points above U+10FFFF included) replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

/// The longest prefix of `text` of at most `max_bytes` that does not split a character.
std::string clip_utf8(std::string_view text, std::size_t max_bytes);

}  // namespace r2r::paper::detail
