// SPDX-License-Identifier: MIT
// The failures of an llm call, each with a stable code that starts the error message
// ("context_length: ...") so that callers (the agent loop, `llm ping`, logs) can tell them apart
// through the C ABI, where only a status and a message cross. docs/llm.md lists them.
#pragma once

#include <r2r/sdk/error.hpp>

#include <string>
#include <string_view>

namespace r2r::plugins::llm {

enum class failure {
  invalid_request,     // the normalised request breaks a rule the schema cannot express
  missing_api_key,     // the configured environment variable is unset or empty
  connect,             // no TCP/TLS connection (refused, unresolvable host, connect timeout)
  timeout,             // the whole call took longer than timeout_ms
  transport,           // the connection broke mid-exchange (reset, partial body)
  response_too_large,  // the body exceeded max_response_bytes
  rate_limited,        // 429 after every retry, or a Retry-After longer than allowed
  overloaded,          // 529 after every retry
  server_error,        // 5xx after every retry
  auth,                // 401: the key was rejected
  permission,          // 403
  not_found,           // 404: wrong base_url or model
  request_too_large,   // 413
  context_length,      // the prompt does not fit the model's context window
  spend_limit,         // the provider account's spending cap is reached
  bad_request,         // any other 4xx
  refusal,             // the model declined to answer
  content_filter,      // the provider filtered the output
  malformed_response,  // the body is not the JSON the wire format promises (truncated, wrong shape)
  budget_exceeded,     // a cap of this instance would be exceeded by the call
  replay_mismatch,     // the replay backend got a request its cassette does not hold
  cancelled,           // the host cancelled the call
};

/// Stable lower-case code of a failure, the prefix of its message.
std::string_view code(failure f) noexcept;

/// The r2r status a failure maps to: transient conditions that outlived their retries are
/// R2R_ERR_UNAVAILABLE, a bad request R2R_ERR_INVALID_ARGUMENT, cancellation R2R_ERR_CANCELLED, the
/// rest R2R_ERR_FAILED.
r2r_status status_of(failure f) noexcept;

/// An sdk::error whose message is "<code>: <detail>", with invalid UTF-8 in detail replaced by '?'.
class llm_error : public sdk::error {
 public:
  llm_error(failure f, const std::string& detail);
  failure kind() const noexcept { return kind_; }

 private:
  failure kind_;
};

/// At most `max` bytes of `text` for an error message, cut at a UTF-8 boundary, with a note of the
/// full size when cut; invalid UTF-8 bytes become '?'.
std::string excerpt(std::string_view text, std::size_t max = 400);

}  // namespace r2r::plugins::llm
