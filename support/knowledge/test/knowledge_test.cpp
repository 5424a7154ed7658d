// SPDX-License-Identifier: MIT
// The embedded knowledge tables: all present, parsed once (one object per process), unknown names
// rejected with the list of known ones.
#include <r2r/support/knowledge.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace {

TEST(SupportKnowledge, EmbedsEveryTable) {
  EXPECT_THAT(r2r::knowledge::table_names(),
              ::testing::UnorderedElementsAre("errors", "imports", "cuda_packages", "stdlib"));
  EXPECT_EQ(r2r::knowledge::table("errors").value("format", ""), "r2r.knowledge.errors/1");
  EXPECT_TRUE(r2r::knowledge::table("imports").contains("imports"));
  EXPECT_TRUE(r2r::knowledge::table("cuda_packages").contains("packages"));
  EXPECT_TRUE(r2r::knowledge::table("stdlib").contains("modules"));
}

TEST(SupportKnowledge, ParsesEachTableOnce) {
  EXPECT_EQ(&r2r::knowledge::table("errors"), &r2r::knowledge::table("errors"));
}

TEST(SupportKnowledge, UnknownTableNamesTheKnownOnes) {
  try {
    r2r::knowledge::table("packages");
    FAIL() << "an unknown table was returned";
  } catch (const std::out_of_range& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("embedded: errors"));
  }
}

}  // namespace
