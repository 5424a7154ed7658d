// SPDX-License-Identifier: MIT
// The engine of an HTTP llm backend: checks the request, enforces the caps, reads the API key,
// sends through libcurl with retries, decodes with the provider's wire_format, and accounts the
// call. The anthropic and openai plugin classes are thin shells around it.
// OWNERSHIP: owns its transport and wire format; keeps a copy of the sdk::host it was given.
// THREADING: one call at a time (the host serialises calls on an instance).
// SECRETS: the API key is read from the environment at each call, put only in the request
// headers, and redacted from every message and log line this engine produces.
#pragma once

#include "accounting.hpp"
#include "http_transport.hpp"
#include "secrets.hpp"
#include "settings.hpp"
#include "wire_format.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/llm.hpp>

#include <memory>
#include <random>

namespace r2r::plugins::llm {

class http_backend {
 public:
  /// Throws sdk::invalid_argument for settings that cannot work (a money cap without prices).
  http_backend(backend_settings settings, std::unique_ptr<wire_format> wire, const sdk::host& host);
  ~http_backend();

  /// One model turn. Throws llm_error (see errors.hpp) with a redacted message.
  sdk::llm::complete_response complete(const sdk::llm::complete_request& request, sdk::call_context& ctx);

  sdk::llm::totals_response totals() const { return ledger_.totals(); }

  const backend_settings& settings() const noexcept { return settings_; }

 private:
  sdk::llm::complete_response run(const sdk::llm::complete_request& request, sdk::call_context& ctx);
  http_outcome attempt_loop(const http_request& http, sdk::call_context& ctx, int& attempts);
  void wait(std::chrono::milliseconds delay, sdk::call_context& ctx);
  [[noreturn]] void fail_http(const http_response& response, int attempts);
  std::string hint(failure kind) const;

  backend_settings settings_;
  std::unique_ptr<wire_format> wire_;
  sdk::host host_;
  http_transport transport_;
  ledger ledger_;
  redactor redactor_;
  std::mt19937_64 random_;
};

}  // namespace r2r::plugins::llm
