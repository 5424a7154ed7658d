// SPDX-License-Identifier: MIT
#include "openai_backend.hpp"

#include <memory>

namespace r2r::plugins::llm {

void from_json(const nlohmann::json& j, openai_backend::config& c) {
  c = openai_backend::config{};
  c.settings.base_url = "https://api.openai.com/v1";
  c.settings.api_key_env = "OPENAI_API_KEY";
  read_backend_settings(j, c.settings);
  c.max_tokens_field = j.value("max_tokens_field", c.max_tokens_field);
  if (c.max_tokens_field != "max_tokens" && c.max_tokens_field != "max_completion_tokens") {
    throw sdk::invalid_argument("max_tokens_field must be max_tokens or max_completion_tokens; found '" +
                                c.max_tokens_field + "'");
  }
}

openai_backend::openai_backend(const config& cfg, const sdk::host& host)
    : engine_(cfg.settings, std::make_unique<openai_wire>(cfg.max_tokens_field), host) {}

}  // namespace r2r::plugins::llm
