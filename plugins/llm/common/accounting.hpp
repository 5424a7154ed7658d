// SPDX-License-Identifier: MIT
// Tokens and money of one llm instance (one run): the cost of each call at configured prices,
// run totals, and hard caps that refuse a call before it is sent when its worst case would cross
// one. The worst case of a call is its estimated input (request bytes / bytes_per_token, rounded
// up) plus its max_tokens; after the call the provider's reported usage is what is added.
// THREADING: not synchronised; the host serialises calls on an instance.
#pragma once

#include <r2r/sdk/kinds/llm.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace r2r::plugins::llm {

/// US dollars per million tokens.
struct prices {
  double input_per_mtok = 0;
  double output_per_mtok = 0;
  double cache_read_per_mtok = 0;
  double cache_write_per_mtok = 0;
};
void from_json(const nlohmann::json& j, prices& p);

/// The worst case of a call that is about to be sent.
struct call_estimate {
  std::int64_t input_tokens = 0;   // estimated from the request's size
  std::int64_t output_tokens = 0;  // its max_tokens
  std::size_t request_bytes = 0;   // what input_tokens was estimated from
  bool caches = false;             // the request asks to write a cache (priced at the higher rate)
};

/// Estimates the input tokens of a request of `bytes` bytes: ceil(bytes / bytes_per_token).
call_estimate estimate_call(std::size_t bytes, int bytes_per_token, std::int64_t max_tokens, bool caches);

class ledger {
 public:
  /// Throws sdk::invalid_argument when a money cap is set without any price (it could never hold).
  ledger(const prices& p, const sdk::llm::limits& caps);
  /// A ledger whose costs are given with each call (replayed calls carry their recorded cost).
  explicit ledger(const sdk::llm::limits& caps);

  /// Cost of reported usage at the configured prices.
  double cost_of(const sdk::llm::usage& u) const noexcept;

  /// Refuses (throws llm_error budget_exceeded, counted in refused_calls) when the call's worst case
  /// would cross a cap. The message names the cap, the amounts and by how much it would be exceeded.
  void admit(const call_estimate& estimate);

  /// Refuses like admit() a call whose usage and cost are known in advance (a replayed call).
  void admit_known(const sdk::llm::usage& u, double cost);

  /// Adds a completed call; returns its cost.
  double record(const sdk::llm::usage& u);
  /// Adds a completed call whose cost is given.
  void record(const sdk::llm::usage& u, double cost);
  void record_failure() noexcept { ++totals_.failed_calls; }

  const sdk::llm::totals_response& totals() const noexcept { return totals_; }

 private:
  /// Throws budget_exceeded when input/output tokens or cost of a call would cross a cap.
  void check(std::int64_t input, std::int64_t output, double cost, const std::string& call_text);

  prices prices_;
  sdk::llm::totals_response totals_;
};

}  // namespace r2r::plugins::llm
