// SPDX-License-Identifier: MIT
#include <r2r/support/http/get.hpp>

namespace r2r::support::http {
namespace {

const char* words(long status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 410:
      return "Gone";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return status >= 500 ? "server error" : status >= 400 ? "client error" : status >= 300 ? "redirect" : "";
  }
}

}  // namespace

std::string status_text(long status) {
  const std::string w = words(status);
  return "HTTP " + std::to_string(status) + (w.empty() ? "" : " (" + w + ")");
}

}  // namespace r2r::support::http
