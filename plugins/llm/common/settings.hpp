// SPDX-License-Identifier: MIT
// The config fields every HTTP llm backend shares (each plugin's config.schema.json lists them with
// their provider's defaults): endpoint, model, where the API key comes from, timeouts, retries,
// prices, caps and limits on what is read back.
#pragma once

#include "accounting.hpp"
#include "retry.hpp"

#include <r2r/sdk/kinds/llm.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace r2r::plugins::llm {

struct backend_settings {
  std::string base_url;
  std::string model;
  std::string api_key_env;         // name of the environment variable holding the key; "" for none
  bool api_key_required = true;    // false for local servers that take no key
  std::int64_t max_tokens = 4096;  // output limit when a request gives none
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds timeout{600000};
  retry_policy retry;
  llm::prices prices;
  sdk::llm::limits limits;
  int bytes_per_token = 3;  // for the input estimate of caps; low, so the estimate errs high
  std::size_t max_response_bytes = 64u << 20;
  std::map<std::string, std::string> headers;  // extra request headers (never secrets: use api_key_env)
};

/// Reads the shared fields of `config`; fields absent there keep the values already in `s` (the
/// provider's defaults). Throws sdk::invalid_argument with the field's name on a bad value that
/// the schema let through (for example a header that would carry credentials).
void read_backend_settings(const nlohmann::json& config, backend_settings& s);

}  // namespace r2r::plugins::llm
