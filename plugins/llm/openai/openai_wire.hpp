// SPDX-License-Identifier: MIT
// The OpenAI Chat Completions wire format (POST {base_url}/chat/completions), as spoken by OpenAI
// and by the OpenAI-compatible servers of vLLM, llama.cpp and Ollama.
// Mapping (docs/llm.md): system -> a leading "system" message; an assistant message's text ->
// content and its tool_call blocks -> tool_calls (arguments as JSON text); a user message's
// tool_result blocks -> one "tool" message each, before a user message with its text; tool_choice
// any -> "required", tool -> {"type":"function",...}; usage prompt_tokens includes cached_tokens,
// which are split out as cache_read_tokens. Prompt caching is automatic here: `cache` flags are
// not sent.
// THREADING: immutable after construction.
#pragma once

#include "wire_format.hpp"

#include <string>

namespace r2r::plugins::llm {

class openai_wire : public wire_format {
 public:
  /// max_tokens_field: "max_tokens" or "max_completion_tokens".
  explicit openai_wire(std::string max_tokens_field) : max_tokens_field_(std::move(max_tokens_field)) {}

  std::string_view provider() const noexcept override { return "openai"; }
  std::string url(const std::string& base_url) const override;
  void add_headers(header_list& headers, const std::optional<std::string>& api_key) const override;
  std::string encode(const sdk::llm::complete_request& request, const std::string& model,
                     std::int64_t max_tokens) const override;
  decoded_response decode(std::string_view body, const std::string& requested_model) const override;
  provider_error classify(long status, std::string_view body) const override;

 private:
  std::string max_tokens_field_;
};

}  // namespace r2r::plugins::llm
