// SPDX-License-Identifier: MIT
#include "http_backend.hpp"

#include "request_checks.hpp"

#include <algorithm>
#include <thread>

namespace r2r::plugins::llm {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// base_url without any user:password@ part, for messages and logs.
std::string display_url(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const auto host_end = url.find('/', scheme + 3);
  const auto at = url.rfind('@', host_end == std::string::npos ? url.size() : host_end);
  if (at == std::string::npos || at < scheme) return url;
  return url.substr(0, scheme + 3) + url.substr(at + 1);
}

failure failure_for_transport(transport_failure f) noexcept {
  switch (f) {
    case transport_failure::connect:
      return failure::connect;
    case transport_failure::timeout:
      return failure::timeout;
    case transport_failure::too_large:
      return failure::response_too_large;
    case transport_failure::cancelled:
      return failure::cancelled;
    default:
      return failure::transport;
  }
}

bool writes_cache(const sdk::llm::complete_request& r) {
  if (r.cache_system) return true;
  for (const auto& m : r.messages)
    for (const auto& b : m.content)
      if (b.cache) return true;
  return false;
}

std::int64_t elapsed_ms(steady_clock::time_point since) {
  return std::chrono::duration_cast<milliseconds>(steady_clock::now() - since).count();
}

}  // namespace

http_backend::http_backend(backend_settings settings, std::unique_ptr<wire_format> wire, const sdk::host& host)
    : settings_(std::move(settings)),
      wire_(std::move(wire)),
      host_(host),
      ledger_(settings_.prices, settings_.limits),
      random_(std::random_device{}()) {
  if (settings_.api_key_required && settings_.api_key_env.empty()) {
    throw sdk::invalid_argument(
        "api_key_env is empty but api_key_required is true; name the environment variable that holds the API key, "
        "or set \"api_key_required\": false for a server that needs none");
  }
  redactor_.add_default_patterns();
  R2R_LOG(host_, debug,
          wire_->provider() << " backend: model " << settings_.model << " at " << display_url(settings_.base_url));
}

http_backend::~http_backend() {
  const auto& t = ledger_.totals();
  if (t.calls + t.failed_calls + t.refused_calls == 0) return;
  R2R_LOG(host_, info,
          "run totals: " << t.calls << " calls (" << t.failed_calls << " failed, " << t.refused_calls
                         << " refused by caps), input " << t.usage.input_tokens << " + cache read "
                         << t.usage.cache_read_tokens << " + cache write " << t.usage.cache_write_tokens
                         << " tokens, output " << t.usage.output_tokens << " tokens, $" << t.cost_usd);
}

sdk::llm::complete_response http_backend::complete(const sdk::llm::complete_request& request, sdk::call_context& ctx) {
  try {
    return run(request, ctx);
  } catch (const llm_error& e) {
    if (e.kind() != failure::budget_exceeded && e.kind() != failure::invalid_request) ledger_.record_failure();
    const std::string message = redactor_.apply(e.what());
    R2R_LOG(host_, debug, "complete failed: " << message);  // the caller reports it
    throw sdk::error(e.status(), message);
  }
}

sdk::llm::complete_response http_backend::run(const sdk::llm::complete_request& request, sdk::call_context& ctx) {
  const auto start = steady_clock::now();
  check_request(request);
  const std::string model = request.model.value_or(settings_.model);
  const std::int64_t max_tokens = request.max_tokens.value_or(settings_.max_tokens);

  std::optional<std::string> api_key;
  if (!settings_.api_key_env.empty()) {
    api_key = read_secret_env(settings_.api_key_env);
    if (api_key) {
      redactor_.add_literal(*api_key);
    } else if (settings_.api_key_required) {
      throw llm_error(failure::missing_api_key,
                      "environment variable " + settings_.api_key_env + " is not set or empty; export it with the " +
                          std::string(wire_->provider()) + " API key for " + display_url(settings_.base_url) +
                          " (keys are never read from config files), or set \"api_key_required\": false for a "
                          "server that needs none");
    }
  }

  http_request http;
  http.url = wire_->url(settings_.base_url);
  http.body = wire_->encode(request, model, max_tokens);
  ledger_.admit(estimate_call(http.body.size(), settings_.bytes_per_token, max_tokens, writes_cache(request)));
  http.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}, {"User-Agent", "repo2rocm"}};
  wire_->add_headers(http.headers, api_key);
  for (const auto& [name, value] : settings_.headers) http.headers.emplace_back(name, value);
  http.connect_timeout = settings_.connect_timeout;
  http.total_timeout = settings_.timeout;
  http.max_response_bytes = settings_.max_response_bytes;

  int attempts = 0;
  const http_outcome outcome = attempt_loop(http, ctx, attempts);
  auto decoded = wire_->decode(outcome.response.body, model);
  auto& response = decoded.response;
  response.provider = std::string(wire_->provider());
  response.attempts = attempts;
  response.latency_ms = elapsed_ms(start);
  response.cost_usd = ledger_.record(response.usage);
  if (decoded.problem) {
    // Billed, so accounted above; still a failed call for the caller (complete() counts it).
    throw llm_error(*decoded.problem, decoded.problem_detail + hint(*decoded.problem));
  }
  R2R_LOG(host_, debug,
          "complete: " << response.model << " " << response.stop_reason << " in " << response.latency_ms << " ms, "
                       << attempts << " attempt(s), " << response.usage.all_input() << " in / "
                       << response.usage.output_tokens << " out tokens, $" << response.cost_usd);
  return response;
}

http_outcome http_backend::attempt_loop(const http_request& http, sdk::call_context& ctx, int& attempts) {
  const auto& policy = settings_.retry;
  const int max_attempts = policy.max_retries + 1;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int attempt = 1;; ++attempt) {
    attempts = attempt;
    if (ctx.cancelled()) throw llm_error(failure::cancelled, "the host cancelled the call before it was sent");
    http_outcome outcome = transport_.post(http, [&ctx] { return ctx.cancelled(); });
    const bool last = attempt >= max_attempts;
    const std::string tries = " (attempt " + std::to_string(attempt) + " of " + std::to_string(max_attempts) + ")";
    if (outcome.failure != transport_failure::none) {
      const failure kind = failure_for_transport(outcome.failure);
      if (kind == failure::cancelled) throw llm_error(kind, "the host cancelled the call during the HTTP exchange");
      const std::string what = "POST " + display_url(http.url) + ": " + outcome.detail + tries;
      if (!retryable_failure(outcome.failure) || last) throw llm_error(kind, what + hint(kind));
      const auto delay = backoff_delay(policy, attempt, unit(random_));
      R2R_LOG(host_, warn, redactor_.apply(what) << "; retrying in " << delay.count() << " ms");
      wait(delay, ctx);
      continue;
    }
    const long status = outcome.response.status;
    if (status >= 200 && status < 300) {
      if (attempt > 1) R2R_LOG(host_, info, "HTTP " << status << " on attempt " << attempt);
      return outcome;
    }
    const provider_error reading = wire_->classify(status, outcome.response.body);
    if (!retryable_status(status) || !reading.retryable || last) fail_http(outcome.response, attempt);
    milliseconds delay = backoff_delay(policy, attempt, unit(random_));
    if (auto asked = server_retry_after(outcome.response, std::chrono::system_clock::now())) {
      if (*asked > policy.max_retry_after) {
        throw llm_error(reading.kind, "HTTP " + std::to_string(status) + " and the server asks to retry after " +
                                          std::to_string(asked->count()) +
                                          " ms, longer than retry.max_retry_after_ms (" +
                                          std::to_string(policy.max_retry_after.count()) + " ms)" + tries + ": " +
                                          excerpt(reading.message) + hint(reading.kind));
      }
      delay = *asked;
    }
    R2R_LOG(host_, warn,
            "HTTP " << status << " " << redactor_.apply(excerpt(reading.message, 200)) << tries << "; retrying in "
                    << delay.count() << " ms");
    wait(delay, ctx);
  }
}

void http_backend::wait(milliseconds delay, sdk::call_context& ctx) {
  const auto until = steady_clock::now() + delay;
  while (steady_clock::now() < until) {
    if (ctx.cancelled()) throw llm_error(failure::cancelled, "the host cancelled the call while it waited to retry");
    const auto left = std::chrono::duration_cast<milliseconds>(until - steady_clock::now());
    std::this_thread::sleep_for(std::clamp(left, milliseconds(0), milliseconds(25)));
  }
}

void http_backend::fail_http(const http_response& response, int attempts) {
  const provider_error reading = wire_->classify(response.status, response.body);
  std::string message = std::string(wire_->provider()) + " server answered HTTP " + std::to_string(response.status) +
                        ": " + excerpt(reading.message);
  if (attempts > 1) message += " (after " + std::to_string(attempts) + " attempts)";
  throw llm_error(reading.kind, message + hint(reading.kind));
}

std::string http_backend::hint(failure kind) const {
  switch (kind) {
    case failure::auth:
      return settings_.api_key_env.empty()
                 ? ". The server wants an API key: name its environment variable in api_key_env"
                 : ". Check the API key in environment variable " + settings_.api_key_env + "; it was not retried";
    case failure::permission:
      return ". The key has no access to model " + settings_.model + " or to this endpoint";
    case failure::not_found:
      return ". Check base_url (" + display_url(settings_.base_url) + ") and model (" + settings_.model + ")";
    case failure::context_length:
      return ". The conversation does not fit the model's context window: drop or summarise old turns, trim tool "
             "output, or use a model with a larger window";
    case failure::request_too_large:
      return ". The request body is larger than the server accepts; trim tool output in the conversation";
    case failure::rate_limited:
      return ". Lower the request rate, or raise retry.max_retries / retry.max_retry_after_ms";
    case failure::overloaded:
    case failure::server_error:
      return ". The server kept failing; try again later or raise retry.max_retries";
    case failure::spend_limit:
      return ". The provider account's spending cap is reached; retrying will not help until it is raised";
    case failure::connect:
      return ". Is the server running at " + display_url(settings_.base_url) +
             "? Check base_url, the network, and connect_timeout_ms (" +
             std::to_string(settings_.connect_timeout.count()) + " ms)";
    case failure::timeout:
      return ". No complete answer within timeout_ms (" + std::to_string(settings_.timeout.count()) +
             " ms); raise it or ask for fewer max_tokens";
    case failure::response_too_large:
      return ". Raise max_response_bytes if the server is right to send that much";
    case failure::refusal:
      return ". The model declined; rephrase the request or the system prompt";
    case failure::content_filter:
      return ". The provider's content filter stopped the output";
    default:
      return {};
  }
}

}  // namespace r2r::plugins::llm
