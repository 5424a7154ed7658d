// SPDX-License-Identifier: MIT
// Retry rules: which statuses and failures are retried, Retry-After in its three forms, and the
// bounds of exponential backoff with jitter.
#include "retry.hpp"

#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::llm;
using std::chrono::milliseconds;

http_response with_header(const std::string& name, const std::string& value) {
  http_response r;
  r.status = 429;
  r.headers[name] = value;
  return r;
}

TEST(Retry, RetriesRateLimitsOverloadAndServerErrorsOnly) {
  for (long s : {429L, 500L, 502L, 503L, 504L, 529L, 599L}) EXPECT_TRUE(retryable_status(s)) << s;
  for (long s : {200L, 400L, 401L, 403L, 404L, 408L, 409L, 413L, 422L, 499L}) EXPECT_FALSE(retryable_status(s)) << s;
}

TEST(Retry, RetriesConnectionProblemsButNotCancellationOrTls) {
  EXPECT_TRUE(retryable_failure(transport_failure::connect));
  EXPECT_TRUE(retryable_failure(transport_failure::timeout));
  EXPECT_TRUE(retryable_failure(transport_failure::broken));
  EXPECT_FALSE(retryable_failure(transport_failure::cancelled));
  EXPECT_FALSE(retryable_failure(transport_failure::too_large));
  EXPECT_FALSE(retryable_failure(transport_failure::other));
}

TEST(Retry, ReadsRetryAfterSecondsMillisecondsAndDates) {
  const auto now = std::chrono::system_clock::from_time_t(784111777);  // Sun, 06 Nov 1994 08:49:37 GMT
  EXPECT_EQ(server_retry_after(with_header("retry-after", "7"), now), milliseconds(7000));
  EXPECT_EQ(server_retry_after(with_header("retry-after", "0.25"), now), milliseconds(250));
  EXPECT_EQ(server_retry_after(with_header("retry-after-ms", "120"), now), milliseconds(120));
  EXPECT_EQ(server_retry_after(with_header("retry-after", "Sun, 06 Nov 1994 08:49:47 GMT"), now), milliseconds(10000));
  EXPECT_EQ(server_retry_after(with_header("retry-after", "Sun, 06 Nov 1994 08:49:30 GMT"), now), milliseconds(0));
  EXPECT_FALSE(server_retry_after(with_header("retry-after", "soon"), now));
  EXPECT_FALSE(server_retry_after(with_header("retry-after", "-3"), now));
  EXPECT_FALSE(server_retry_after(http_response{}, now));
  // retry-after-ms wins when both are present (finer).
  auto both = with_header("retry-after", "9");
  both.headers["retry-after-ms"] = "1500";
  EXPECT_EQ(server_retry_after(both, now), milliseconds(1500));
}

TEST(Retry, ParsesOnlyImfFixdates) {
  EXPECT_TRUE(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"));
  EXPECT_FALSE(parse_http_date("1994-11-06T08:49:37Z"));
  EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT trailing"));
}

TEST(Retry, BackoffDoublesWithinJitterBoundsAndIsCapped) {
  retry_policy p;
  p.initial_backoff = milliseconds(100);
  p.max_backoff = milliseconds(1000);
  // Equal jitter: [base/2, base).
  EXPECT_EQ(backoff_delay(p, 1, 0.0), milliseconds(50));
  EXPECT_EQ(backoff_delay(p, 1, 0.999), milliseconds(99));
  EXPECT_EQ(backoff_delay(p, 2, 0.0), milliseconds(100));
  EXPECT_EQ(backoff_delay(p, 3, 0.5), milliseconds(300));
  EXPECT_EQ(backoff_delay(p, 4, 0.0), milliseconds(400));
  EXPECT_EQ(backoff_delay(p, 5, 0.0), milliseconds(500));  // 1600 capped to 1000
  EXPECT_EQ(backoff_delay(p, 30, 1.0), milliseconds(1000));
  // Out-of-range randomness is clamped, never negative or beyond the cap.
  EXPECT_EQ(backoff_delay(p, 1, -5.0), milliseconds(50));
  EXPECT_EQ(backoff_delay(p, 1, 7.0), milliseconds(100));
}

}  // namespace
