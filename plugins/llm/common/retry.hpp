// SPDX-License-Identifier: MIT
// When to retry an HTTP call and how long to wait: 429, 529 and other 5xx are retried, as are
// connection failures, timeouts and broken connections; any other 4xx is not. The wait honours
// the server's Retry-After (or retry-after-ms), and otherwise grows exponentially with jitter.
// Pure functions: no clock reads or sleeps here, so every rule is unit-tested exactly.
#pragma once

#include "http_transport.hpp"

#include <chrono>
#include <optional>
#include <string_view>

namespace r2r::plugins::llm {

struct retry_policy {
  int max_retries = 4;                                // attempts = max_retries + 1
  std::chrono::milliseconds initial_backoff{500};     // wait before the first retry (before jitter)
  std::chrono::milliseconds max_backoff{30000};       // cap of the exponential wait
  std::chrono::milliseconds max_retry_after{120000};  // a longer Retry-After fails the call instead
};

/// 429, and 500-599 (529 "overloaded" included).
bool retryable_status(long status) noexcept;

/// Connection failures, timeouts and broken connections; not TLS/protocol errors, size limits or
/// cancellation.
bool retryable_failure(transport_failure failure) noexcept;

/// The wait the server asks for: `retry-after-ms` (milliseconds), else `retry-after` as seconds
/// (integer or decimal) or as an HTTP-date relative to `now`. nullopt when absent or unreadable;
/// a date in the past gives 0.
std::optional<std::chrono::milliseconds> server_retry_after(const http_response& response,
                                                            std::chrono::system_clock::time_point now);

/// Parses an HTTP-date ("Sun, 06 Nov 1994 08:49:37 GMT"); nullopt when it is not one.
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text);

/// The wait before retry number `retry` (1 for the first retry): base = min(max_backoff,
/// initial_backoff * 2^(retry-1)), then "equal jitter": base/2 + unit_random * base/2, where
/// unit_random is uniform in [0, 1). Spreads clients that failed together without ever waiting
/// less than half the base.
std::chrono::milliseconds backoff_delay(const retry_policy& policy, int retry, double unit_random) noexcept;

}  // namespace r2r::plugins::llm
