// SPDX-License-Identifier: MIT
#include <r2r/support/http/curl_global.hpp>

#include <curl/curl.h>

#include <mutex>
#include <stdexcept>

namespace r2r::support::http {

void init_libcurl() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw std::runtime_error("curl_global_init failed");
  });
}

}  // namespace r2r::support::http
