// SPDX-License-Identifier: MIT
#include "anthropic_backend.hpp"

#include <memory>

namespace r2r::plugins::llm {

void from_json(const nlohmann::json& j, anthropic_backend::config& c) {
  c = anthropic_backend::config{};
  c.settings.base_url = "https://api.anthropic.com";
  c.settings.api_key_env = "ANTHROPIC_API_KEY";
  read_backend_settings(j, c.settings);
  c.api_version = j.value("api_version", c.api_version);
}

anthropic_backend::anthropic_backend(const config& cfg, const sdk::host& host)
    : engine_(cfg.settings, std::make_unique<anthropic_wire>(cfg.api_version), host) {}

}  // namespace r2r::plugins::llm
