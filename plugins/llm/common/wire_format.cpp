// SPDX-License-Identifier: MIT
#include "wire_format.hpp"

#include <algorithm>
#include <cctype>

namespace r2r::plugins::llm {

failure failure_for_status(long status) noexcept {
  switch (status) {
    case 401:
      return failure::auth;
    case 403:
      return failure::permission;
    case 404:
      return failure::not_found;
    case 413:
      return failure::request_too_large;
    case 429:
      return failure::rate_limited;
    case 529:
      return failure::overloaded;
    default:
      return status >= 500 ? failure::server_error : failure::bad_request;
  }
}

bool says_context_overflow(std::string_view message) {
  std::string text(message);
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* phrase :
       {"prompt is too long", "context length", "context_length", "context window", "context size", "maximum context",
        "exceeds the available context", "exceed_context_size", "too many tokens",
        "input length and `max_tokens` exceed", "reduce the length of the messages"}) {
    if (text.find(phrase) != std::string::npos) return true;
  }
  return false;
}

nlohmann::json parse_body(std::string_view body, std::string_view provider) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    const bool truncated = e.byte >= body.size();
    throw llm_error(failure::malformed_response,
                    "the " + std::string(provider) + " server answered with a success status but its body is not " +
                        (truncated ? "complete JSON: it ends after " + std::to_string(body.size()) +
                                         " bytes in the middle of a value (truncated)"
                                   : "valid JSON (" + std::string(e.what()) + ")") +
                        ". The call was not retried because the server may have billed it; check the server or any "
                        "proxy between us, then retry");
  }
  if (!doc.is_object()) {
    throw llm_error(failure::malformed_response, "the " + std::string(provider) + " server answered with a JSON " +
                                                     doc.type_name() + " where an object was expected");
  }
  return doc;
}

namespace {

const char* type_word(nlohmann::json::value_t type) {
  switch (type) {
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "an integer";
    default:
      return "a value";
  }
}

}  // namespace

const nlohmann::json& required_field(const nlohmann::json& object, const char* key, nlohmann::json::value_t type,
                                     const std::string& pointer, std::string_view provider) {
  const std::string where = pointer + "/" + key;
  auto it = object.find(key);
  if (it == object.end()) {
    throw llm_error(failure::malformed_response, "the " + std::string(provider) + " response has no " + where +
                                                     " (expected " + type_word(type) + ")");
  }
  const bool integer_wanted = type == nlohmann::json::value_t::number_integer;
  const bool ok = integer_wanted ? (it->is_number_integer() || it->is_number_unsigned()) : it->type() == type;
  if (!ok) {
    throw llm_error(failure::malformed_response, "the " + std::string(provider) + " response has " + where + " as " +
                                                     it->type_name() + "; expected " + type_word(type));
  }
  return *it;
}

std::int64_t token_count(const nlohmann::json& object, const char* key, const std::string& pointer,
                         std::string_view provider) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return 0;
  if (it->is_number_unsigned()) return static_cast<std::int64_t>(it->get<std::uint64_t>());
  if (it->is_number_integer() && it->get<std::int64_t>() >= 0) return it->get<std::int64_t>();
  throw llm_error(failure::malformed_response, "the " + std::string(provider) + " response has " + pointer + "/" + key +
                                                   " = " + it->dump() + "; expected a non-negative integer");
}

}  // namespace r2r::plugins::llm
