// SPDX-License-Identifier: MIT
// What differs between providers: the URL, the headers, how a normalised request is written, how
// a response body is read back, and how an error body is understood. Everything else (transport,
// retries, caps, secrets, timing) is the shared http_backend.
// THREADING: implementations are immutable after construction.
#pragma once

#include "errors.hpp"

#include <r2r/sdk/kinds/llm.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace r2r::plugins::llm {

using header_list = std::vector<std::pair<std::string, std::string>>;

/// A provider's reading of a non-2xx response.
struct provider_error {
  failure kind = failure::bad_request;
  std::string message;    // the provider's own words (type and message), not yet redacted
  bool retryable = true;  // false overrides a retryable status (for example a spend cap's 429)
};

/// A decoded 2xx body: the response, or a failure the model or provider reported in it.
struct decoded_response {
  sdk::llm::complete_response response;
  std::optional<failure> problem;
  std::string problem_detail;
};

/// The failure a status means before the body is read: 401 auth, 403 permission, 404 not_found,
/// 413 request_too_large, 429 rate_limited, 529 overloaded, other 5xx server_error, other 4xx
/// bad_request.
failure failure_for_status(long status) noexcept;

/// True when a provider's error message says the prompt does not fit the context window (the
/// wording of Anthropic, OpenAI, vLLM, llama.cpp's server and Ollama).
bool says_context_overflow(std::string_view message);

class wire_format {
 public:
  virtual ~wire_format() = default;

  /// "anthropic", "openai": the response's `provider` field.
  virtual std::string_view provider() const noexcept = 0;

  /// The endpoint for `base_url` (no trailing slash).
  virtual std::string url(const std::string& base_url) const = 0;

  /// Adds the provider's headers, the API key's included when there is one.
  /// SECRETS: the key goes into `headers` only.
  virtual void add_headers(header_list& headers, const std::optional<std::string>& api_key) const = 0;

  /// The request body for `request`, already checked by check_request().
  virtual std::string encode(const sdk::llm::complete_request& request, const std::string& model,
                             std::int64_t max_tokens) const = 0;

  /// Reads a 2xx body. Fills id, model (requested_model when the body has none), content,
  /// stop_reason, provider_stop_reason and usage. A body that is not what the provider promises
  /// throws llm_error malformed_response. A well-formed answer that is nevertheless a failure
  /// (refusal, content_filter, context_length) comes back in `problem`, with its usage, so that
  /// the tokens it cost are still accounted before the call fails.
  virtual decoded_response decode(std::string_view body, const std::string& requested_model) const = 0;

  /// Reads a non-2xx response.
  virtual provider_error classify(long status, std::string_view body) const = 0;
};

/// Parses a 2xx body as a JSON object, or throws llm_error malformed_response saying whether it
/// looks truncated (the parse ran off the end) and that nothing was retried.
nlohmann::json parse_body(std::string_view body, std::string_view provider);

/// object[key] when present with the JSON type `type` (number_integer accepts any integer), else
/// throws llm_error malformed_response naming `pointer` + "/" + key, what was expected and found.
const nlohmann::json& required_field(const nlohmann::json& object, const char* key, nlohmann::json::value_t type,
                                     const std::string& pointer, std::string_view provider);

/// A token count: object[key] when it is a non-negative integer, 0 when absent or null; anything
/// else throws malformed_response.
std::int64_t token_count(const nlohmann::json& object, const char* key, const std::string& pointer,
                         std::string_view provider);

}  // namespace r2r::plugins::llm
