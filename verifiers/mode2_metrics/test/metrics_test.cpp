// SPDX-License-Identifier: MIT
#include "metrics.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::verifiers::mode2;

TEST(ExtractMetric, AllPrintedForms) {
  EXPECT_EQ(extract_metric("final accuracy: 75.2\n", {"accuracy"}), 75.2);
  EXPECT_EQ(extract_metric("accuracy = 0.91", {"accuracy"}), 0.91);
  EXPECT_EQ(extract_metric("the accuracy is 81.5%", {"accuracy"}), 81.5);
  EXPECT_EQ(extract_metric(R"({"eval_accuracy": 0.734, "loss": 1.2})", {"eval_accuracy"}), 0.734);
  EXPECT_EQ(extract_metric("epoch 3: 12.5 perplexity", {"perplexity"}), 12.5);
  EXPECT_EQ(extract_metric("loss=3.2e-02", {"loss"}), 0.032);
  EXPECT_EQ(extract_metric("Top-1 Accuracy: 76.13 %", {"top_1 accuracy"}), 76.13);
}

TEST(ExtractMetric, LastValueWinsAcrossAliases) {
  const std::string log = "acc: 70.0\nepoch 2\naccuracy: 72.5\nepoch 3\nacc: 74.0\n";
  EXPECT_EQ(extract_metric(log, {"accuracy", "acc"}), 74.0);
  EXPECT_EQ(extract_metric(log, {"accuracy"}), 72.5);
}

TEST(ExtractMetric, NamesAreWholeWords) {
  EXPECT_EQ(extract_metric("val_loss: 0.9\nloss: 0.5\n", {"loss"}), 0.5);
  EXPECT_FALSE(extract_metric("val_loss: 0.9\n", {"loss"}).has_value());
  EXPECT_FALSE(extract_metric("nothing here", {"bleu"}).has_value());
}

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
