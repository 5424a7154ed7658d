// SPDX-License-Identifier: MIT
#include <r2r/support/http/url.hpp>

#include <cctype>

namespace r2r::support::http {

std::string scheme_of(std::string_view url) {
  const auto sep = url.find("://");
  std::string s(sep == std::string_view::npos ? std::string_view() : url.substr(0, sep));
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_http_url(std::string_view url) {
  const std::string s = scheme_of(url);
  return s == "http" || s == "https";
}

std::string redact_url(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const auto start = scheme_end + 3;
  auto end = url.find_first_of("/?#", start);
  if (end == std::string_view::npos) end = url.size();
  const auto at = url.substr(start, end - start).rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, start)) + "***" + std::string(url.substr(start + at));
}

}  // namespace r2r::support::http
