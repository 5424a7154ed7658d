// SPDX-License-Identifier: MIT
// The model ranking's reply parser (paper/rank.hpp): strict JSON with an index and a reason, and
// nothing else read from it; and when a ranking is worth asking for.
#include <r2r/paper/rank.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::paper::parse_rank_reply;
using ::testing::HasSubstr;

TEST(PaperRankReply, StrictJsonWithAnIndexAndAReasonIsRead) {
  const auto pick = parse_rank_reply("  {\"index\": 3, \"reason\": \"the big model\"}\n");
  ASSERT_TRUE(pick) << pick.error();
  EXPECT_EQ(pick->index, 3u);
  EXPECT_EQ(pick->reason, "the big model");
  // Keys beyond the two are ignored, never carried anywhere.
  EXPECT_TRUE(parse_rank_reply(R"({"index": 0, "reason": "r", "value": 99.9})"));
}

TEST(PaperRankReply, AnythingElseIsRefusedWithWhy) {
  const std::pair<const char*, const char*> bad[] = {
      {"```json\n{\"index\": 1, \"reason\": \"x\"}\n```", "not strict JSON"},
      {"Index 1.", "not strict JSON"},
      {"[1]", "not an object"},
      {R"({"index": -1, "reason": "x"})", "non-negative integer"},
      {R"({"index": 1.5, "reason": "x"})", "non-negative integer"},
      {R"({"index": "1", "reason": "x"})", "non-negative integer"},
      {R"({"index": 1})", "no string \"reason\""},
      {"", "not strict JSON"},
  };
  for (const auto& [reply, why] : bad) {
    const auto pick = parse_rank_reply(reply);
    ASSERT_FALSE(pick) << reply;
    EXPECT_THAT(pick.error(), HasSubstr(why)) << reply;
  }
}

TEST(PaperRankReply, TheReasonIsClippedToValidUtf8) {
  const std::string long_reason(400, 'a');
  const auto pick = parse_rank_reply("{\"index\": 0, \"reason\": \"" + long_reason + "\"}");
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->reason.size(), 300u);
}

TEST(PaperRankReply, OnlyAnUndecidedTieOfTwoOrMoreIsWorthRanking) {
  r2r::paper::target_choice choice;
  choice.ties = {{true, ""}, {false, ""}};
  EXPECT_FALSE(r2r::paper::worth_ranking(choice));  // one tied: the deterministic rule decides
  choice.ties.push_back({true, ""});
  EXPECT_TRUE(r2r::paper::worth_ranking(choice));
  choice.index = 0;
  EXPECT_FALSE(r2r::paper::worth_ranking(choice));  // already a target
}

}  // namespace
