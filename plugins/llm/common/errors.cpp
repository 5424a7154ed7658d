// SPDX-License-Identifier: MIT
#include "errors.hpp"

#include <algorithm>

namespace r2r::plugins::llm {

std::string_view code(failure f) noexcept {
  switch (f) {
    case failure::invalid_request:
      return "invalid_request";
    case failure::missing_api_key:
      return "missing_api_key";
    case failure::connect:
      return "connect";
    case failure::timeout:
      return "timeout";
    case failure::transport:
      return "transport";
    case failure::response_too_large:
      return "response_too_large";
    case failure::rate_limited:
      return "rate_limited";
    case failure::overloaded:
      return "overloaded";
    case failure::server_error:
      return "server_error";
    case failure::auth:
      return "auth";
    case failure::permission:
      return "permission";
    case failure::not_found:
      return "not_found";
    case failure::request_too_large:
      return "request_too_large";
    case failure::context_length:
      return "context_length";
    case failure::spend_limit:
      return "spend_limit";
    case failure::bad_request:
      return "bad_request";
    case failure::refusal:
      return "refusal";
    case failure::content_filter:
      return "content_filter";
    case failure::malformed_response:
      return "malformed_response";
    case failure::budget_exceeded:
      return "budget_exceeded";
    case failure::replay_mismatch:
      return "replay_mismatch";
    case failure::cancelled:
      return "cancelled";
  }
  return "failed";
}

r2r_status status_of(failure f) noexcept {
  switch (f) {
    case failure::invalid_request:
      return R2R_ERR_INVALID_ARGUMENT;
    case failure::missing_api_key:
    case failure::connect:
    case failure::timeout:
    case failure::transport:
    case failure::rate_limited:
    case failure::overloaded:
    case failure::server_error:
      return R2R_ERR_UNAVAILABLE;
    case failure::cancelled:
      return R2R_ERR_CANCELLED;
    default:
      return R2R_ERR_FAILED;
  }
}

// Messages quote servers, parsers and models; whatever they held, the message is valid UTF-8, since
// it ends up in JSON (CLI --json output, cassettes).
llm_error::llm_error(failure f, const std::string& detail)
    : sdk::error(status_of(f), std::string(code(f)) + ": " + excerpt(detail, std::string::npos)), kind_(f) {}

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4;
  else
    return 0;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

}  // namespace

std::string excerpt(std::string_view text, std::size_t max) {
  // Server bodies may hold anything; messages must be valid UTF-8 (they end up in JSON), so an
  // invalid byte becomes '?' and the cut never splits a character.
  std::string out;
  out.reserve(std::min(text.size(), max) + 32);
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n = utf8_sequence(text, i);
    if (out.size() + std::max<std::size_t>(n, 1) > max) break;
    if (n == 0) {
      out.push_back('?');
      i += 1;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes in all)";
  return out;
}

}  // namespace r2r::plugins::llm
