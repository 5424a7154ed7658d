// SPDX-License-Identifier: MIT
#include "retry.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <string>

namespace r2r::plugins::llm {

bool retryable_status(long status) noexcept {
  return status == 429 || (status >= 500 && status <= 599);
}

bool retryable_failure(transport_failure failure) noexcept {
  return failure == transport_failure::connect || failure == transport_failure::timeout ||
         failure == transport_failure::broken;
}

namespace {

std::optional<double> parse_number(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text) {
  // IMF-fixdate, the form RFC 9110 requires senders to use.
  std::tm tm{};
  const std::string copy(text);
  const char* end = ::strptime(copy.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const std::time_t seconds = ::timegm(&tm);
  if (seconds == static_cast<std::time_t>(-1)) return std::nullopt;
  return std::chrono::system_clock::from_time_t(seconds);
}

std::optional<std::chrono::milliseconds> server_retry_after(const http_response& response,
                                                            std::chrono::system_clock::time_point now) {
  using std::chrono::milliseconds;
  if (auto ms = parse_number(response.header("retry-after-ms"))) {
    return milliseconds(static_cast<std::int64_t>(std::ceil(*ms)));
  }
  const std::string value = response.header("retry-after");
  if (value.empty()) return std::nullopt;
  if (auto seconds = parse_number(value)) return milliseconds(static_cast<std::int64_t>(std::ceil(*seconds * 1000)));
  if (auto when = parse_http_date(value)) {
    return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(*when - now));
  }
  return std::nullopt;
}

std::chrono::milliseconds backoff_delay(const retry_policy& policy, int retry, double unit_random) noexcept {
  const double initial = static_cast<double>(policy.initial_backoff.count());
  const double cap = static_cast<double>(policy.max_backoff.count());
  const double base = std::min(cap, initial * std::pow(2.0, std::max(0, retry - 1)));
  const double unit = std::clamp(unit_random, 0.0, 1.0);
  return std::chrono::milliseconds(static_cast<std::int64_t>(base / 2 + unit * base / 2));
}

}  // namespace r2r::plugins::llm
