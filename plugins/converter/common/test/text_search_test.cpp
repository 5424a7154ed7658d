// SPDX-License-Identifier: MIT
#include "../src/text_search.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using r2r::plugins::converter::contains;

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

}  // namespace
