// SPDX-License-Identifier: MIT
// r2r.llm.anthropic: the llm kind over Anthropic's Messages API, with tools. The shared
// http_backend does transport, retries, caps and secrets; anthropic_wire does the format.
// THREADING: the host serialises calls on an instance.
#pragma once

#include "anthropic_wire.hpp"
#include "http_backend.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/llm.hpp>

#include <nlohmann/json.hpp>

namespace r2r::plugins::llm {

class anthropic_backend {
 public:
  struct config {
    backend_settings settings;
    std::string api_version = "2023-06-01";
  };

  anthropic_backend(const config& cfg, const sdk::host& host);

  sdk::llm::complete_response complete(const sdk::llm::complete_request& request, sdk::call_context& ctx) {
    return engine_.complete(request, ctx);
  }
  sdk::llm::totals_response totals(const sdk::llm::totals_request&) { return engine_.totals(); }

  static sdk::method_table<anthropic_backend> methods() { return sdk::llm::methods<anthropic_backend>(); }

 private:
  http_backend engine_;
};

/// Reads the config (config.schema.json) over the provider defaults: base_url
/// https://api.anthropic.com, api_key_env ANTHROPIC_API_KEY.
void from_json(const nlohmann::json& j, anthropic_backend::config& c);

}  // namespace r2r::plugins::llm
