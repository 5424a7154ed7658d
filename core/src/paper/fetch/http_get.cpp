// SPDX-License-Identifier: MIT
// fetch_paper (fetch.hpp): the paper's GET through support/http, its failures in the paper's words.
#include <r2r/paper/fetch.hpp>
#include <r2r/support/http/get.hpp>
#include <r2r/support/http/url.hpp>

namespace r2r::paper {
namespace {

namespace http = support::http;

constexpr const char* way_out = "or download the paper and pass its path";

load_error failure(const std::string& shown, const std::string& what) {
  return load_error{"paper " + shown + ": " + what};
}

}  // namespace

load_result<fetched_paper> fetch_paper(const std::string& url, const fetch_limits& limits) {
  fetched_paper out;
  out.url = http::redact_url(url);
  const std::string shown = "'" + out.url + "'";
  if (const std::string refused = refused_scheme(url); !refused.empty()) return tl::unexpected(load_error{refused});
  http::get_request request;
  request.url = url;
  request.max_bytes = limits.max_bytes;
  request.max_redirects = limits.max_redirects;
  request.connect_timeout = limits.connect_timeout;
  request.total_timeout = limits.total_timeout;
  request.user_agent = "repo2rocm (paper download)";
  request.more_advice = way_out;
  auto got = http::get_string(request);
  if (got.failure == http::get_failure::too_large)
    return tl::unexpected(failure(shown, "the download grew past " + std::to_string(limits.max_bytes >> 20) + " MiB (" +
                                             std::to_string(limits.max_bytes) +
                                             " bytes) and was stopped; give the paper alone, not an archive"));
  if (!got.answered()) return tl::unexpected(failure(shown, got.error));
  const std::string at = got.final_url == out.url ? std::string() : " at '" + got.final_url + "'";
  if (got.status >= 400)
    return tl::unexpected(
        failure(shown, "the server answered " + http::status_text(got.status) + at + "; check the link, " + way_out));
  if (got.status < 200 || got.status >= 300)
    return tl::unexpected(failure(shown, "unexpected " + http::status_text(got.status) + at + "; " + way_out));
  out.final_url = std::move(got.final_url);
  out.redirects = std::move(got.redirects);
  out.content_type = std::move(got.content_type);
  out.bytes = std::move(got.body);
  return out;
}

}  // namespace r2r::paper
