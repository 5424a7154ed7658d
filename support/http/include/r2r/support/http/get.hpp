// SPDX-License-Identifier: MIT
// One HTTP GET over libcurl, for every download of repo2rocm itself (the paper of `--paper URL`,
// the environment stage's assets); the llm backends' POST transport and the docker engine's
// unix-socket client are separate.
// Contracts:
//   - only http:// and https://, the first URL and every redirect target; redirects are followed
//     here, one hop at a time, each target checked before a byte is sent to it; at most
//     `max_redirects` of them;
//   - `origin_headers` (credentials: an Authorization) go only to URLs of the first URL's origin
//     (scheme, host and port, as libcurl parses them): a hop to another origin (a CDN) is sent
//     without them, so credentials never follow to another host;
//   - the body of the last answer is capped while it streams (`max_bytes`; a Content-Length
//     above the cap stops it before the body); the bodies of redirects are discarded;
//   - a connect timeout per hop and one total timeout for all hops together;
//   - the proxy variables libcurl honours (http_proxy, https_proxy, ALL_PROXY, NO_PROXY; not
//     HTTP_PROXY) apply;
//   - an HTTP status is an answer, not an error: any status but a redirect ends the GET with
//     `status` set, 4xx and 5xx included; `error` is set only when no final answer came;
//   - credentials in a URL (`https://user:pass@host/`) are used for that URL but appear in no
//     returned URL or message (redact_url), and header values appear in none.
// THREADING: reentrant; each call uses its own curl handle. libcurl's global init runs once.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace r2r::support::http {

struct header {
  std::string name;
  std::string value;
};

struct get_request {
  std::string url;
  std::vector<header> origin_headers;       // sent to the first URL's origin only
  std::optional<std::uintmax_t> max_bytes;  // cap on the final body; none: no cap
  int max_redirects = 10;
  std::chrono::milliseconds connect_timeout{15000};  // per hop
  std::chrono::milliseconds total_timeout{300000};   // all hops together
  std::string user_agent = "repo2rocm";
  // Appended to what to do on a failure, after a comma: the caller's way out, e.g. "or download
  // the paper and pass its path". Empty: none.
  std::string more_advice;
};

/// Why no final answer came; `none` when one did.
enum class get_failure {
  none,
  bad_scheme,          // the URL or a redirect target is not http(s)
  too_many_redirects,  // more than max_redirects
  no_location,         // a redirect status without a Location
  too_large,           // the body passed max_bytes
  write_failed,        // the file sink could not be created or written
  timeout,
  tls,
  resolve,    // DNS, of the host or of the proxy
  connect,    // refused or unreachable
  transport,  // any other libcurl failure
};

struct get_result {
  long status = 0;                     // of the final answer; 0 when none came
  std::string content_type;            // of the final answer, as the server said
  std::string final_url;               // the URL answered (or failed), redacted
  std::vector<std::string> redirects;  // each URL hopped to, in order, redacted
  std::uintmax_t bytes = 0;            // body bytes kept (the string's size, or written to the file)
  std::string body;                    // get_string only
  get_failure failure = get_failure::none;
  // For a failure: what happened, at which URL when a redirect led there, and what to do,
  // without a subject (the caller prefixes what was being fetched). Empty when answered.
  std::string error;

  bool answered() const noexcept { return failure == get_failure::none; }
};

/// GETs `request.url`; the final body lands in `result.body`.
get_result get_string(const get_request& request);

/// GETs `request.url`; the final body (of any status) lands in `file`, created or truncated
/// before the first hop. On a failure the file may hold part of a body; the caller removes it.
get_result get_file(const get_request& request, const std::filesystem::path& file);

/// "HTTP 404 (Not Found)": the status with its usual words, for messages.
std::string status_text(long status);

}  // namespace r2r::support::http
