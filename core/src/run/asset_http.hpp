// SPDX-License-Identifier: MIT
// The asset fetcher's HTTP client: GET over libcurl into memory (an API answer) or into a file (a
// model file), for the environment stage's asset fetch (run_assets.hpp).
// Contracts:
//   - only http:// and https://, first and after each redirect (at most 10);
//   - a bearer token is sent to the first host only: libcurl drops it when a redirect leaves that
//     host (a Hub resolve answer redirects to a CDN), and the token never appears in an answer;
//   - the proxy variables libcurl honours (http_proxy, https_proxy, NO_PROXY) apply;
//   - `error` is set only when no HTTP answer came (DNS, connect, TLS, timeout, a body over the
//     cap); an HTTP error status is an answer, reported by `status`.
// THREADING: reentrant; each call uses its own curl handle.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>

namespace r2r::run::assets {

struct http_request {
  std::string url;
  std::string bearer;  // empty: no Authorization
  std::chrono::seconds timeout{3600};
};

struct http_answer {
  long status = 0;                             // 0 when no answer came
  std::map<std::string, std::string> headers;  // of the last response, names in lower case
  std::string error;                           // transport failure, with advice; empty when answered
};

/// GETs into `body`, at most `max_bytes` (more is an error).
http_answer get_text(const http_request& request, std::string& body, std::size_t max_bytes);

/// GETs into `file` (created or truncated); on any failure the file may hold a partial body.
http_answer get_file(const http_request& request, const std::filesystem::path& file);

}  // namespace r2r::run::assets
