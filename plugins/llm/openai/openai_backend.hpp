// SPDX-License-Identifier: MIT
// r2r.llm.openai: the llm kind over OpenAI Chat Completions with tools, at a configurable base URL
// so that vLLM, llama.cpp's server and Ollama (on an AMD GPU or anywhere) work as well as hosted
// services. The shared http_backend does transport, retries, caps and secrets; openai_wire does
// the format.
// THREADING: the host serialises calls on an instance.
#pragma once

#include "http_backend.hpp"
#include "openai_wire.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/llm.hpp>

#include <nlohmann/json.hpp>

namespace r2r::plugins::llm {

class openai_backend {
 public:
  struct config {
    backend_settings settings;
    std::string max_tokens_field = "max_tokens";
  };

  openai_backend(const config& cfg, const sdk::host& host);

  sdk::llm::complete_response complete(const sdk::llm::complete_request& request, sdk::call_context& ctx) {
    return engine_.complete(request, ctx);
  }
  sdk::llm::totals_response totals(const sdk::llm::totals_request&) { return engine_.totals(); }

  static sdk::method_table<openai_backend> methods() { return sdk::llm::methods<openai_backend>(); }

 private:
  http_backend engine_;
};

/// Reads the config (config.schema.json) over the provider defaults: base_url
/// https://api.openai.com/v1, api_key_env OPENAI_API_KEY.
void from_json(const nlohmann::json& j, openai_backend::config& c);

}  // namespace r2r::plugins::llm
