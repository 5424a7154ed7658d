// SPDX-License-Identifier: MIT
// The first difference between two JSON documents, as a person reads it.
#include "json_diff.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::llm;
using nlohmann::json;
using ::testing::HasSubstr;

TEST(JsonDiff, EqualDocumentsHaveNoDifference) {
  const auto a = json::parse(R"({"a": [1, 2.0, {"b": "c"}], "d": null})");
  EXPECT_FALSE(first_difference(a, a));
  EXPECT_FALSE(first_difference(json::parse("[1]"), json::parse("[1.0]")));
}

TEST(JsonDiff, StringDifferenceGivesPointerOffsetAndContext) {
  const std::string base(100, 'x');
  const auto a = json{{"messages", {{{"text", base + "make -j8 all"}}}}};
  const auto b = json{{"messages", {{{"text", base + "make -j4 all"}}}}};
  const auto d = first_difference(a, b, "recorded", "this run");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pointer, "/messages/0/text");
  EXPECT_THAT(d->description, HasSubstr("character 107"));
  // A window of 40 characters before the difference, cut with "...", and the rest up to 40 after.
  const std::string before(33, 'x');
  EXPECT_THAT(d->description, HasSubstr("recorded ...\"" + before + "make -j8 all\""));
  EXPECT_THAT(d->description, HasSubstr("this run ...\"" + before + "make -j4 all\""));
}

TEST(JsonDiff, MissingAndExtraKeysAndElements) {
  auto d = first_difference(json::parse(R"({"a": 1, "b": 2})"), json::parse(R"({"a": 1})"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pointer, "/b");
  EXPECT_EQ(d->description, "expected has 2, found has no such key");

  d = first_difference(json::parse(R"({"a": 1})"), json::parse(R"({"a": 1, "c/d": true})"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pointer, "/c~1d");
  EXPECT_EQ(d->description, "expected has no such key, found has true");

  d = first_difference(json::parse("[1, 2]"), json::parse("[1, 2, 3]"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pointer, "/2");
  EXPECT_THAT(d->description, HasSubstr("the first extra one is 3"));
}

TEST(JsonDiff, TypeMismatchNamesBothTypes) {
  const auto d = first_difference(json::parse(R"({"x": "1"})"), json::parse(R"({"x": 1})"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pointer, "/x");
  EXPECT_EQ(d->description, "expected has string \"1\", found has number 1");
}

TEST(JsonDiff, CommonPrefixLength) {
  EXPECT_EQ(common_prefix_length(json::parse(R"({"a":"xyz"})"), json::parse(R"({"a":"xyq"})")), 8u);
}

}  // namespace
