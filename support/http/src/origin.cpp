// SPDX-License-Identifier: MIT
#include <r2r/support/http/origin.hpp>

#include <curl/curl.h>

#include <array>
#include <cctype>
#include <memory>
#include <optional>

namespace r2r::support::http {
namespace {

struct url_deleter {
  void operator()(CURLU* u) const noexcept { curl_url_cleanup(u); }
};

/// scheme, host, port of `url`, lower case; none when libcurl cannot parse it.
std::optional<std::array<std::string, 3>> origin_of(const std::string& url) {
  std::unique_ptr<CURLU, url_deleter> u(curl_url());
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return std::nullopt;
  std::array<std::string, 3> out;
  const std::array<CURLUPart, 3> parts{CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    char* text = nullptr;
    if (curl_url_get(u.get(), parts[i], &text, CURLU_DEFAULT_PORT) != CURLUE_OK || text == nullptr) return std::nullopt;
    out[i] = text;
    curl_free(text);
    for (auto& c : out[i]) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

bool same_origin(const std::string& a, const std::string& b) {
  const auto oa = origin_of(a);
  const auto ob = origin_of(b);
  return oa && ob && *oa == *ob;
}

}  // namespace r2r::support::http
