// SPDX-License-Identifier: MIT
#include "accounting.hpp"

#include "errors.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace r2r::plugins::llm {

void from_json(const nlohmann::json& j, prices& p) {
  p.input_per_mtok = j.value("input_per_mtok", 0.0);
  p.output_per_mtok = j.value("output_per_mtok", 0.0);
  p.cache_read_per_mtok = j.value("cache_read_per_mtok", 0.0);
  p.cache_write_per_mtok = j.value("cache_write_per_mtok", 0.0);
}

call_estimate estimate_call(std::size_t bytes, int bytes_per_token, std::int64_t max_tokens, bool caches) {
  const auto per = static_cast<std::size_t>(std::max(1, bytes_per_token));
  call_estimate e;
  e.request_bytes = bytes;
  e.input_tokens = static_cast<std::int64_t>((bytes + per - 1) / per);
  e.output_tokens = max_tokens;
  e.caches = caches;
  return e;
}

namespace {

std::string usd(double value) {
  char text[64];
  std::snprintf(text, sizeof text, value != 0 && value < 0.01 ? "$%.6f" : "$%.4f", value);
  return text;
}

std::string tokens(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return (n < 0 ? "-" : "") + digits;
}

}  // namespace

ledger::ledger(const prices& p, const sdk::llm::limits& caps) : prices_(p) {
  totals_.limits = caps;
  const bool any_price =
      p.input_per_mtok > 0 || p.output_per_mtok > 0 || p.cache_read_per_mtok > 0 || p.cache_write_per_mtok > 0;
  if (caps.max_cost_usd && !any_price) {
    throw sdk::invalid_argument(
        "limits.max_cost_usd is set but no prices are configured, so every call would cost $0 and the cap could "
        "never hold; add \"prices\": {\"input_per_mtok\": ..., \"output_per_mtok\": ...} (USD per million tokens) "
        "or remove max_cost_usd");
  }
}

double ledger::cost_of(const sdk::llm::usage& u) const noexcept {
  return (static_cast<double>(u.input_tokens) * prices_.input_per_mtok +
          static_cast<double>(u.output_tokens) * prices_.output_per_mtok +
          static_cast<double>(u.cache_read_tokens) * prices_.cache_read_per_mtok +
          static_cast<double>(u.cache_write_tokens) * prices_.cache_write_per_mtok) /
         1e6;
}

ledger::ledger(const sdk::llm::limits& caps) {
  totals_.limits = caps;
}

void ledger::admit(const call_estimate& e) {
  const double input_rate =
      e.caches ? std::max(prices_.input_per_mtok, prices_.cache_write_per_mtok) : prices_.input_per_mtok;
  const double worst = (static_cast<double>(e.input_tokens) * input_rate +
                        static_cast<double>(e.output_tokens) * prices_.output_per_mtok) /
                       1e6;
  check(e.input_tokens, e.output_tokens, worst,
        "this call up to " + tokens(e.input_tokens) + " input (estimated from " +
            tokens(static_cast<std::int64_t>(e.request_bytes)) + " request bytes) + " + tokens(e.output_tokens) +
            " output (its max_tokens)");
}

void ledger::admit_known(const sdk::llm::usage& u, double cost) {
  check(u.all_input(), u.output_tokens, cost,
        "this call's recorded " + tokens(u.all_input()) + " input + " + tokens(u.output_tokens) + " output");
}

void ledger::check(std::int64_t input, std::int64_t output, double cost, const std::string& call_text) {
  const auto& used = totals_.usage;
  const auto& caps = totals_.limits;
  std::vector<std::string> crossed;
  auto check_tokens = [&](const char* name, const std::optional<std::int64_t>& cap, std::int64_t so_far,
                          std::int64_t this_call, const std::string& what) {
    if (!cap || so_far + this_call <= *cap) return;
    crossed.push_back(std::string(name) + " " + tokens(*cap) + ": used " + tokens(so_far) + " + " + what + " = " +
                      tokens(so_far + this_call) + ", over by " + tokens(so_far + this_call - *cap));
  };
  check_tokens("max_input_tokens", caps.max_input_tokens, used.all_input(), input,
               tokens(input) + " input of this call");
  check_tokens("max_output_tokens", caps.max_output_tokens, used.output_tokens, output,
               tokens(output) + " output of this call");
  check_tokens("max_total_tokens", caps.max_total_tokens, used.all_input() + used.output_tokens, input + output,
               call_text);
  if (caps.max_cost_usd && totals_.cost_usd + cost > *caps.max_cost_usd) {
    crossed.push_back("max_cost_usd " + usd(*caps.max_cost_usd) + ": spent " + usd(totals_.cost_usd) + " + up to " +
                      usd(cost) + " for " + call_text + " = " + usd(totals_.cost_usd + cost) + ", over by " +
                      usd(totals_.cost_usd + cost - *caps.max_cost_usd));
  }
  if (crossed.empty()) return;
  ++totals_.refused_calls;
  std::string message = "refused before sending: ";
  for (std::size_t i = 0; i < crossed.size(); ++i) message += (i ? "; " : "") + crossed[i];
  message += ". Raise the cap under \"limits\" in this llm instance's config, lower max_tokens, or shorten the prompt";
  throw llm_error(failure::budget_exceeded, message);
}

double ledger::record(const sdk::llm::usage& u) {
  const double cost = cost_of(u);
  record(u, cost);
  return cost;
}

void ledger::record(const sdk::llm::usage& u, double cost) {
  ++totals_.calls;
  totals_.usage += u;
  totals_.cost_usd += cost;
}

}  // namespace r2r::plugins::llm
