// SPDX-License-Identifier: MIT
#include "settings.hpp"

#include <r2r/sdk/error.hpp>

#include <algorithm>
#include <cctype>

namespace r2r::plugins::llm {
namespace {

std::chrono::milliseconds ms(const nlohmann::json& j, const char* key, std::chrono::milliseconds fallback) {
  return std::chrono::milliseconds(j.value(key, static_cast<std::int64_t>(fallback.count())));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

void read_backend_settings(const nlohmann::json& config, backend_settings& s) {
  if (!config.is_object()) {
    throw sdk::invalid_argument("config must be a JSON object, found " + std::string(config.type_name()));
  }
  s.base_url = config.value("base_url", s.base_url);
  while (!s.base_url.empty() && s.base_url.back() == '/') s.base_url.pop_back();
  if (s.base_url.rfind("http://", 0) != 0 && s.base_url.rfind("https://", 0) != 0) {
    throw sdk::invalid_argument("base_url must start with http:// or https://; found '" + s.base_url + "'");
  }
  s.model = config.value("model", s.model);
  s.api_key_env = config.value("api_key_env", s.api_key_env);
  s.api_key_required = config.value("api_key_required", s.api_key_required);
  s.max_tokens = config.value("max_tokens", s.max_tokens);
  s.connect_timeout = ms(config, "connect_timeout_ms", s.connect_timeout);
  s.timeout = ms(config, "timeout_ms", s.timeout);
  if (auto r = config.find("retry"); r != config.end()) {
    s.retry.max_retries = r->value("max_retries", s.retry.max_retries);
    s.retry.initial_backoff = ms(*r, "initial_backoff_ms", s.retry.initial_backoff);
    s.retry.max_backoff = ms(*r, "max_backoff_ms", s.retry.max_backoff);
    s.retry.max_retry_after = ms(*r, "max_retry_after_ms", s.retry.max_retry_after);
  }
  if (auto p = config.find("prices"); p != config.end()) s.prices = p->get<llm::prices>();
  if (auto l = config.find("limits"); l != config.end()) s.limits = l->get<sdk::llm::limits>();
  s.bytes_per_token = config.value("bytes_per_token", s.bytes_per_token);
  s.max_response_bytes = config.value("max_response_bytes", s.max_response_bytes);
  if (auto h = config.find("headers"); h != config.end()) {
    for (auto it = h->begin(); it != h->end(); ++it) {
      const std::string name = lower(it.key());
      if (name == "authorization" || name == "x-api-key" || name == "api-key" || name == "proxy-authorization") {
        throw sdk::invalid_argument("headers." + it.key() +
                                    " would put a credential in the config; name the environment variable that holds "
                                    "it in api_key_env instead");
      }
      s.headers[it.key()] = it.value().get<std::string>();
    }
  }
  if (s.model.empty()) throw sdk::invalid_argument("model must be set (the provider's model id)");
}

}  // namespace r2r::plugins::llm
