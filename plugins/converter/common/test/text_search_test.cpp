// SPDX-License-Identifier: MIT
#include "../src/text_search.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace {

using r2r::plugins::converter::contains;
using r2r::plugins::converter::contains_at_rare;

TEST(TextSearch, FindsANeedleAfterManyNearMisses) {
  // Near misses share the needle's first letters and its last one: a skip table that shifted too
  // far would jump over the real occurrence at the end.
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "cooperative_group coalesced_grou thread_block_til s ";
  EXPECT_FALSE(contains(text, "cooperative_groups"));
  EXPECT_FALSE(contains(text, "coalesced_group"));
  EXPECT_FALSE(contains(text, "thread_block_tile"));
  EXPECT_TRUE(contains(text + "cooperative_groups", "cooperative_groups"));
  EXPECT_TRUE(contains("cooperative_groups" + text, "cooperative_groups"));
  EXPECT_TRUE(contains(text.substr(0, 5000) + "mma.h" + text, "mma.h"));
}

TEST(TextSearch, EdgeCases) {
  EXPECT_TRUE(contains("anything", ""));
  EXPECT_FALSE(contains("", "nvcuda"));
  EXPECT_FALSE(contains("nvcud", "nvcuda"));
  EXPECT_TRUE(contains("nvcuda", "nvcuda"));
  EXPECT_TRUE(contains(std::string_view("x\0nvcuda", 8), "nvcuda"));  // bytes after a NUL are searched too
}

// The wmma pass's pre-scan: contains_at_rare must answer what contains answers, with the needle at
// the very start and end of the text, next to near misses, and on random texts full of partial matches.
TEST(TextSearch, ContainsAtRareAnswersWhatContainsAnswers) {
  EXPECT_TRUE(contains_at_rare("nvcuda::wmma", "nvcuda", 1));
  EXPECT_TRUE(contains_at_rare("x nvcuda", "nvcuda", 1));
  EXPECT_TRUE(contains_at_rare("#include <mma.h>", "mma.h", 3));
  EXPECT_FALSE(contains_at_rare("vcuda nvcud nvcudA", "nvcuda", 1));
  EXPECT_FALSE(contains_at_rare("v", "nvcuda", 1));
  EXPECT_FALSE(contains_at_rare("", "mma.h", 3));
  EXPECT_TRUE(contains_at_rare("anything", "", 0));
  std::mt19937 rng(11);
  const std::string alphabet = "nvcuda.mh";
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    const int length = static_cast<int>(rng() % 30);
    for (int i = 0; i < length; ++i) text += alphabet[rng() % alphabet.size()];
    for (const auto& [needle, rare] :
         {std::pair<std::string_view, std::size_t>{"nvcuda", 1}, {"mma.h", 3}, {"vv", 0}}) {
      ASSERT_EQ(contains_at_rare(text, needle, rare), contains(text, needle)) << text << " / " << needle;
    }
  }
}

}  // namespace
