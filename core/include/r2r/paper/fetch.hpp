// SPDX-License-Identifier: MIT
// `--paper URL`: one paper downloaded over http or https with the GET client of support/http
// (get.hpp: redirects followed by hand, each target's scheme checked before a byte is sent, the
// body capped while it streams, timeouts, the proxy variables libcurl honours).
// Contracts:
//   - only http:// and https:// are fetched, first and after each redirect; at most
//     `max_redirects` redirects;
//   - the body is capped at `max_bytes` while it streams;
//   - credentials in a URL (`https://user:pass@host/`) are used for the request but never appear
//     in a returned URL or message (support::http::redact_url);
//   - every failure is a load_error that says what happened (HTTP status, DNS, connect, TLS,
//     timeout, too large, empty) and what to do.
// THREADING: reentrant.
#pragma once

#include <r2r/paper/document.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::paper {

/// True when `arg` starts with a URL scheme (`letters://`), whatever the scheme.
bool looks_like_url(std::string_view arg);

/// Why `url` (a looks_like_url argument) is not downloaded: its scheme is not http or https.
/// Empty when it is. The CLI checks this before any work, as a usage error.
std::string refused_scheme(std::string_view url);

struct fetch_limits {
  std::size_t max_bytes = max_paper_bytes;
  int max_redirects = 5;
  std::chrono::milliseconds connect_timeout{15000};
  std::chrono::milliseconds total_timeout{300000};
};

struct fetched_paper {
  std::string url;                     // as asked, redacted
  std::string final_url;               // after redirects, redacted
  std::vector<std::string> redirects;  // each URL redirected to, in order, redacted
  std::string content_type;            // as the server said; informative only
  std::string bytes;                   // the body
};

/// GETs `url` within `limits`.
load_result<fetched_paper> fetch_paper(const std::string& url, const fetch_limits& limits = {});

/// The document in a downloaded body, decided by its bytes, not by the Content-Type: `%PDF-`
/// is a PDF; an HTML page, an empty body or bytes that are not UTF-8 text are refused; other
/// text is Markdown/LaTeX/text by the URL path's extension. `shown` names the paper in messages.
load_result<document> load_fetched(std::string_view bytes, const std::string& final_url, const std::string& shown);

/// The file name a download is kept under beside the plan: the final URL path's last segment in
/// [A-Za-z0-9._-] (at most 96 bytes; "paper" when none), with `.pdf` or `.txt` appended when its
/// extension does not say what the bytes are.
std::string kept_name(const std::string& final_url, std::string_view bytes);

}  // namespace r2r::paper
