// SPDX-License-Identifier: MIT
// The Anthropic Messages API wire format (POST {base_url}/v1/messages): how a normalised request
// becomes a Messages request with tools, and how a message or an error body comes back.
// Mapping (docs/llm.md): tool_call <-> tool_use (arguments <-> input), tool_result <-> tool_result
// (tool_call_id <-> tool_use_id), `cache` and `cache_system` <-> cache_control breakpoints,
// tool_choice any/tool/auto/none as is, stop -> stop_sequences. Usage: input_tokens,
// output_tokens, cache_read_input_tokens, cache_creation_input_tokens.
// THREADING: immutable after construction.
#pragma once

#include "wire_format.hpp"

#include <string>

namespace r2r::plugins::llm {

class anthropic_wire : public wire_format {
 public:
  explicit anthropic_wire(std::string api_version) : api_version_(std::move(api_version)) {}

  std::string_view provider() const noexcept override { return "anthropic"; }
  std::string url(const std::string& base_url) const override;
  void add_headers(header_list& headers, const std::optional<std::string>& api_key) const override;
  std::string encode(const sdk::llm::complete_request& request, const std::string& model,
                     std::int64_t max_tokens) const override;
  decoded_response decode(std::string_view body, const std::string& requested_model) const override;
  provider_error classify(long status, std::string_view body) const override;

 private:
  std::string api_version_;  // the anthropic-version header
};

}  // namespace r2r::plugins::llm
