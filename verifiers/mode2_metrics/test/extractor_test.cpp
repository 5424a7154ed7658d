// SPDX-License-Identifier: MIT
// Mode 2 extraction by rule, attack first: each ambiguous log gives the right number or a refusal
// that lists the candidates, never a wrong number; then the honest printed forms.
#include "extractor.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::verifier::mode2;
using ::testing::HasSubstr;

// ------------------------------------------------------------------ ambiguous logs

TEST(ExtractByLabel, TestThenTrainSplitIsRefusedWithBothCandidates) {
  const auto e = extract_by_label("test accuracy: 61.0\ntrain accuracy: 76.3\n", {"accuracy"}, "", "");
  EXPECT_FALSE(e.value.has_value());  // the old rule answered 76.3 (the train split)
  const auto d = describe_refusal(e);
  EXPECT_THAT(d, HasSubstr("different qualifiers (test, train)"));
  EXPECT_THAT(d, HasSubstr("'test accuracy: 61.0' (line 1: 61)"));
  EXPECT_THAT(d, HasSubstr("(line 2: 76.3)"));
  // The plan's qualifier selects the split the paper reports.
  EXPECT_EQ(extract_by_label("test accuracy: 61.0\ntrain accuracy: 76.3\n", {"accuracy"}, "test", "").value, 61.0);
}

TEST(ExtractByLabel, EpochNumberBeforeTheLabelIsNotTheValue) {
  const auto e = extract_by_label("Epoch 76 accuracy 12.3\n", {"accuracy"}, "", "");
  ASSERT_TRUE(e.value.has_value()) << describe_refusal(e);
  EXPECT_EQ(*e.value, 12.3);  // the old rule answered 76
}

TEST(ExtractByLabel, TopOnePercentIsNeverMinusOne) {
  // The old rule read "-1 accuracy" out of "top-1 accuracy". Without a '%' unit in the plan the
  // percentage is refused; with it the value is 45.2.
  const auto refused = extract_by_label("top-1 accuracy 45.2%\n", {"accuracy"}, "", "");
  EXPECT_FALSE(refused.value.has_value());
  EXPECT_THAT(describe_refusal(refused), HasSubstr("percentage"));
  const auto read = extract_by_label("top-1 accuracy 45.2%\n", {"accuracy"}, "", "%");
  ASSERT_TRUE(read.value.has_value()) << describe_refusal(read);
  EXPECT_EQ(*read.value, 45.2);
}

TEST(ExtractByLabel, TopOneAndTopFiveAreDifferentMetrics) {
  const auto e = extract_by_label("top-1 accuracy: 76.1\ntop-5 accuracy: 92.9\n", {"accuracy"}, "", "");
  EXPECT_FALSE(e.value.has_value());
  EXPECT_EQ(extract_by_label("top-1 accuracy: 76.1\ntop-5 accuracy: 92.9\n", {"accuracy"}, "top-1", "").value, 76.1);
}

TEST(ExtractByLabel, MixedPercentAndPlainAndTwoValuesOnALineAreRefused) {
  EXPECT_FALSE(extract_by_label("accuracy: 0.61\naccuracy: 61%\n", {"accuracy"}, "", "%").value.has_value());
  EXPECT_FALSE(extract_by_label("accuracy: 61.0 accuracy: 70.2\n", {"accuracy"}, "", "").value.has_value());
}

TEST(ExtractByLabel, NothingPrintedIsARefusal) {
  const auto e = extract_by_label("nothing here", {"bleu"}, "", "");
  EXPECT_FALSE(e.value.has_value());
  EXPECT_THAT(e.refusal, HasSubstr("never prints"));
}

TEST(ExtractByRegex, MalformedPatternsAreRefused) {
  EXPECT_THAT(extract_by_regex("acc: 1", "acc: ([0-9.]+) (x)").refusal, HasSubstr("exactly one capture group"));
  EXPECT_THAT(extract_by_regex("acc: 1", "([0-9.]+)").refusal, HasSubstr("anchored to a literal label"));
  EXPECT_THAT(extract_by_regex("acc: 1", "acc: ([0-9.]+").refusal, HasSubstr("does not compile"));
  EXPECT_THAT(extract_by_regex("acc: n/a", "acc: (\\S+)").refusal, HasSubstr("not a number"));
}

// ------------------------------------------------------------------ honest forms

TEST(ExtractByLabel, PrintedForms) {
  EXPECT_EQ(extract_by_label("final accuracy: 75.2\n", {"accuracy"}, "", "").value, 75.2);
  EXPECT_EQ(extract_by_label("accuracy = 0.91", {"accuracy"}, "", "").value, 0.91);
  EXPECT_EQ(extract_by_label("the accuracy is 81.5%", {"accuracy"}, "", "%").value, 81.5);
  EXPECT_EQ(extract_by_label(R"({"eval_accuracy": 0.734, "loss": 1.2})", {"eval_accuracy"}, "", "").value, 0.734);
  EXPECT_EQ(extract_by_label("epoch 3: 12.5 perplexity", {"perplexity"}, "", "").value, 12.5);
  EXPECT_EQ(extract_by_label("loss=3.2e-02", {"loss"}, "", "").value, 0.032);
  EXPECT_EQ(extract_by_label("Top-1 Accuracy: 76.13 %", {"top_1 accuracy"}, "", "%").value, 76.13);
}

TEST(ExtractByLabel, LastReadingOfOneKindWinsAcrossEpochsAndAliases) {
  const std::string log = "acc: 70.0\nepoch 2\naccuracy: 72.5\nepoch 3\nacc: 74.0\n";
  EXPECT_EQ(extract_by_label(log, {"accuracy", "acc"}, "", "").value, 74.0);
  EXPECT_EQ(extract_by_label(log, {"accuracy"}, "", "").value, 72.5);
  EXPECT_EQ(extract_by_label("val_loss: 0.9\nloss: 0.5\n", {"loss"}, "", "").value, 0.5);
}

TEST(ExtractByRegex, LastMatchOfTheCaptureGroup) {
  const auto e = extract_by_regex("test acc: 60.1\ntrain acc: 99\ntest acc: 61.0\n", "test acc: ([0-9.]+)");
  ASSERT_TRUE(e.value.has_value()) << e.refusal;
  EXPECT_EQ(*e.value, 61.0);
  EXPECT_EQ(e.candidates.size(), 2u);
}

TEST(ExtractFromFiles, JsonKeyAndCsvColumn) {
  EXPECT_EQ(extract_from_json(R"({"test": {"accuracy": 0.761}})", "test.accuracy").value, 0.761);
  EXPECT_EQ(extract_from_json(R"({"history": [{"acc": 1}, {"acc": 2.5}]})", "history.-1.acc").value, 2.5);
  EXPECT_THAT(extract_from_json(R"({"test": {"acc": "high"}})", "test.acc").refusal, HasSubstr("not a number"));
  EXPECT_THAT(extract_from_json("{", "a").refusal, HasSubstr("not JSON"));
  EXPECT_EQ(extract_from_csv("epoch,test_acc\n1,50.0\n2,61.5\n", "test_acc").value, 61.5);
  EXPECT_THAT(extract_from_csv("epoch,acc\n1,50\n", "test_acc").refusal, HasSubstr("no column 'test_acc'"));
}

TEST(Extractor, FromThePlanMetric) {
  EXPECT_EQ(extractor_from_metric({{"name", "accuracy"}}).kind, "label");
  const auto x = extractor_from_metric(
      {{"name", "accuracy"}, {"extractor", {{"kind", "json"}, {"file", "out/r.json"}, {"key", "acc"}}}});
  EXPECT_EQ(x.file, "out/r.json");
  EXPECT_THROW(
      extractor_from_metric({{"name", "a"}, {"extractor", {{"kind", "json"}, {"file", "/etc/x"}, {"key", "k"}}}}),
      std::invalid_argument);
  EXPECT_THROW(extractor_from_metric({{"name", "a"}, {"extractor", {{"kind", "xml"}}}}), std::invalid_argument);
  EXPECT_THROW(extractor_from_metric({{"name", "a"}, {"extractor", {{"kind", "regex"}}}}), std::invalid_argument);
}

}  // namespace
