// SPDX-License-Identifier: MIT
#include <r2r/convert/version.hpp>

#include <charconv>

namespace r2r::plugins::converter {

std::optional<version_code> parse_version(std::string_view text) {
  version_code parts[3] = {0, 0, 0};
  int count = 0;
  std::size_t pos = 0;
  while (count < 3) {
    const std::size_t dot = text.find('.', pos);
    const std::string_view part = text.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    if (part.empty() || part.size() > 4) return std::nullopt;
    version_code value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size()) return std::nullopt;
    parts[count++] = value;
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
    if (count == 3) return std::nullopt;  // a fourth component
  }
  if (count < 2 || parts[1] > 99 || parts[2] > 99 || parts[0] > 9999) return std::nullopt;
  return parts[0] * 10000 + parts[1] * 100 + parts[2];
}

std::string format_version(version_code code) {
  if (code == 0) return {};
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

}  // namespace r2r::plugins::converter
