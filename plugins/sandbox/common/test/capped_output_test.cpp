// SPDX-License-Identifier: MIT
#include "capped_output.hpp"

#include <gtest/gtest.h>

namespace {

using r2r::plugins::sandbox::capped_output;

TEST(CappedOutput, KeepsEverythingUnderTheCap) {
  capped_output c(100);
  c.append("hello ");
  c.append(std::string("\0bin", 4));
  EXPECT_FALSE(c.truncated());
  EXPECT_EQ(c.render(), std::string("hello \0bin", 10));
  EXPECT_EQ(c.total_bytes(), 10u);
}

TEST(CappedOutput, KeepsHeadAndTailAroundAVisibleMarker) {
  capped_output c(40);  // 30 head + 10 tail
  std::string all;
  for (int i = 0; i < 1000; ++i) {
    const std::string piece = std::to_string(i) + ",";
    all += piece;
    c.append(piece);
  }
  EXPECT_TRUE(c.truncated());
  EXPECT_EQ(c.total_bytes(), all.size());
  const auto text = c.render();
  EXPECT_EQ(text.substr(0, 30), all.substr(0, 30));
  EXPECT_EQ(text.substr(text.size() - 10), all.substr(all.size() - 10));
  EXPECT_NE(text.find("[r2r: " + std::to_string(all.size() - 40) + " bytes of output truncated]"), std::string::npos);
}

TEST(CappedOutput, LargeAppendsKeepOnlyTheLastTailBytes) {
  capped_output c(8);  // 6 head + 2 tail
  c.append(std::string(1 << 20, 'a'));
  c.append("xyz");
  EXPECT_EQ(c.render().substr(0, 6), "aaaaaa");
  EXPECT_EQ(c.render().substr(c.render().size() - 2), "yz");
}

}  // namespace
