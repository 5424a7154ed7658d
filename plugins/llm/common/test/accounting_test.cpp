// SPDX-License-Identifier: MIT
// Cost per call at configured prices, run totals, and caps that refuse a call with a message
// naming the cap and the overshoot.
#include "accounting.hpp"
#include "errors.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::llm;
using r2r::sdk::llm::limits;
using r2r::sdk::llm::usage;
using ::testing::HasSubstr;

prices sonnet() {
  prices p;
  p.input_per_mtok = 3;
  p.output_per_mtok = 15;
  p.cache_read_per_mtok = 0.3;
  p.cache_write_per_mtok = 3.75;
  return p;
}

std::string refusal(ledger& l, const call_estimate& e) {
  try {
    l.admit(e);
  } catch (const llm_error& x) {
    EXPECT_EQ(x.kind(), failure::budget_exceeded);
    EXPECT_EQ(x.status(), R2R_ERR_FAILED);
    return x.what();
  }
  return {};
}

TEST(Accounting, CostsEveryKindOfTokenAtItsPrice) {
  ledger l(sonnet(), limits{});
  const usage u{1000000, 100000, 2000000, 400000};
  // 1M * 3 + 0.1M * 15 + 2M * 0.3 + 0.4M * 3.75 = 3 + 1.5 + 0.6 + 1.5
  EXPECT_DOUBLE_EQ(l.cost_of(u), 6.6);
  EXPECT_DOUBLE_EQ(l.record(u), 6.6);
  l.record(usage{10, 20, 0, 0});
  const auto& t = l.totals();
  EXPECT_EQ(t.calls, 2);
  EXPECT_EQ(t.usage.input_tokens, 1000010);
  EXPECT_EQ(t.usage.output_tokens, 100020);
  EXPECT_EQ(t.usage.cache_read_tokens, 2000000);
  EXPECT_NEAR(t.cost_usd, 6.6 + (10 * 3 + 20 * 15) / 1e6, 1e-12);
}

TEST(Accounting, EstimateRoundsInputUp) {
  const auto e = estimate_call(10, 3, 256, false);
  EXPECT_EQ(e.input_tokens, 4);
  EXPECT_EQ(e.output_tokens, 256);
  EXPECT_EQ(estimate_call(9, 3, 1, false).input_tokens, 3);
  EXPECT_EQ(estimate_call(0, 3, 1, false).input_tokens, 0);
}

TEST(Accounting, TokenCapRefusesWithTheCapAndTheOvershoot) {
  limits caps;
  caps.max_total_tokens = 1000;
  ledger l(sonnet(), caps);
  l.record(usage{500, 100, 0, 0});
  EXPECT_NO_THROW(l.admit(estimate_call(300, 3, 300, false)));          // 600 + 100 + 300 = 1000, exactly at the cap
  const std::string m = refusal(l, estimate_call(303, 3, 300, false));  // 101 input + 300 = 1001
  // The exact message docs/llm.md shows.
  EXPECT_EQ(m,
            "budget_exceeded: refused before sending: max_total_tokens 1,000: used 600 + this call up to 101 input "
            "(estimated from 303 request bytes) + 300 output (its max_tokens) = 1,001, over by 1. Raise the cap under "
            "\"limits\" in this llm instance's config, lower max_tokens, or shorten the prompt");
  EXPECT_EQ(l.totals().refused_calls, 1);
  EXPECT_EQ(l.totals().calls, 1);
}

TEST(Accounting, OutputAndInputCapsCountSeparatelyAndCachedInputCounts) {
  limits caps;
  caps.max_output_tokens = 100;
  caps.max_input_tokens = 5000;
  ledger l(sonnet(), caps);
  l.record(usage{1000, 90, 3000, 500});  // 4500 input in all
  const std::string m = refusal(l, estimate_call(3000, 3, 20, false));
  EXPECT_THAT(m, HasSubstr("max_input_tokens 5,000: used 4,500 + 1,000 input of this call = 5,500, over by 500"));
  EXPECT_THAT(m, HasSubstr("max_output_tokens 100: used 90 + 20 output of this call = 110, over by 10"));
}

TEST(Accounting, MoneyCapUsesWorstCaseCostAndSaysByHowMuch) {
  limits caps;
  caps.max_cost_usd = 1.0;
  ledger l(sonnet(), caps);
  l.record(usage{300000, 0, 0, 0});  // $0.90
  // 30,000 input bytes / 3 = 10,000 tokens * $3/M = $0.03; 5,000 output * $15/M = $0.075
  const std::string m = refusal(l, estimate_call(30000, 3, 5000, false));
  EXPECT_THAT(m, HasSubstr("max_cost_usd $1.0000: spent $0.9000 + up to $0.1050"));
  EXPECT_THAT(m, HasSubstr("= $1.0050, over by $0.005000"));
  // A call that fits is admitted.
  EXPECT_NO_THROW(l.admit(estimate_call(3000, 3, 1000, false)));
}

TEST(Accounting, CacheWritesArePricedAtTheHigherRateWhenEstimating) {
  limits caps;
  caps.max_cost_usd = 0.0037;
  ledger l(sonnet(), caps);
  // 1,000 tokens at $3.75/M = $0.00375 > cap; at $3/M it would fit.
  EXPECT_NO_THROW(l.admit(estimate_call(3000, 3, 0, false)));
  EXPECT_THAT(refusal(l, estimate_call(3000, 3, 0, true)), HasSubstr("max_cost_usd"));
}

TEST(Accounting, MoneyCapWithoutPricesIsAConfigError) {
  limits caps;
  caps.max_cost_usd = 5;
  EXPECT_THROW(ledger(prices{}, caps), r2r::sdk::invalid_argument);
  EXPECT_NO_THROW(ledger{caps});  // replay: costs come with each call
}

TEST(Accounting, KnownUsageIsCheckedExactly) {
  limits caps;
  caps.max_total_tokens = 100;
  ledger l(caps);
  l.record(usage{40, 10, 0, 0}, 0.5);
  EXPECT_NO_THROW(l.admit_known(usage{30, 20, 0, 0}, 0.1));
  const std::string m = [&] {
    try {
      l.admit_known(usage{30, 21, 0, 0}, 0.1);
    } catch (const llm_error& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_THAT(m,
              HasSubstr("max_total_tokens 100: used 50 + this call's recorded 30 input + 21 output = 101, over by 1"));
  EXPECT_DOUBLE_EQ(l.totals().cost_usd, 0.5);
}

}  // namespace
