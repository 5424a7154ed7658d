// SPDX-License-Identifier: MIT
#include "metrics.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::verifier::mode2;

TEST(Tolerance, ClassDefaults) {
  EXPECT_EQ(default_tolerance("ratio").value, 0.15);
  EXPECT_EQ(default_tolerance("accuracy").kind, "absolute");
  EXPECT_EQ(default_tolerance("accuracy").value, 3);
  EXPECT_EQ(default_tolerance("loss").value, 0.05);
  EXPECT_EQ(default_tolerance("throughput").value, 0.25);
  EXPECT_EQ(default_tolerance("latency").value, 0.25);
  EXPECT_EQ(default_tolerance("other").value, 0.15);
}

TEST(Compare, WithinAndOutside) {
  EXPECT_TRUE(compare(75.2, 76.1, {"absolute", 3}, "higher").within);
  EXPECT_FALSE(compare(72.0, 76.1, {"absolute", 3}, "higher").within);
  EXPECT_TRUE(compare(1.04, 1.0, {"relative", 0.05}, "lower").within);
  EXPECT_FALSE(compare(1.06, 1.0, {"relative", 0.05}, "lower").within);
}

TEST(Compare, BetterBeyondToleranceIsNotReproduced) {
  const auto c = compare(3.0, 2.0, {"relative", 0.15}, "higher");  // a 50 % better speedup
  EXPECT_FALSE(c.within);
  EXPECT_THAT(c.detail, ::testing::HasSubstr("better than the target beyond tolerance"));
  EXPECT_FALSE(compare(0.5, 1.0, {"relative", 0.05}, "lower").within);  // a loss far below the paper's
}

}  // namespace
