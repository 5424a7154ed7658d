// SPDX-License-Identifier: MIT
#include <r2r/guards/text_change.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::guard::line_delta;
using r2r::plugins::guard::parse_unified_diff;
using ::testing::ElementsAre;

TEST(TextChange, UnifiedDiffPerFileWithHunkCounts) {
  const std::string patch =
      "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n x = 1\n--- y = 2\n+y = 3\n z\n"
      "--- a/k.cu\n+++ /dev/null\n@@ -1 +0,0 @@\n-__global__ void k() {}\n";
  const auto files = parse_unified_diff(patch);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "a.py");
  EXPECT_THAT(files[0].removed, ElementsAre("-- y = 2"));
  EXPECT_THAT(files[0].added, ElementsAre("y = 3"));
  EXPECT_THAT(files[0].context, ElementsAre("x = 1", "z"));
  EXPECT_EQ(files[1].path, "k.cu");
  EXPECT_TRUE(files[1].deleted);
  EXPECT_THAT(files[1].removed, ElementsAre("__global__ void k() {}"));
}

// Found by fuzz_unified_diff: a hunk count beyond `long` threw std::out_of_range out of the guard
// (which the executor turns into a deny); the agent writes the patch, so it must parse.
TEST(TextChange, AHunkCountBeyondLongIsReadNotThrown) {
  const std::string patch = "--- a/k.cu\n+++ b/k.cu\n@@ -1,99999999999999999999999 +1,2 @@\n-old\n+new\n+more\n";
  std::vector<r2r::plugins::guard::file_change> files;
  ASSERT_NO_THROW(files = parse_unified_diff(patch));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0].removed, ElementsAre("old"));
  EXPECT_THAT(files[0].added, ElementsAre("new", "more"));
}

TEST(TextChange, LineDeltaOfContents) {
  const auto d = line_delta("c.yaml", std::string("a: 1\nb: 2\nb: 2\n"), "a: 1\nb: 2\nc: 3\n");
  EXPECT_THAT(d.removed, ElementsAre("b: 2"));
  EXPECT_THAT(d.added, ElementsAre("c: 3"));
  const auto unknown = line_delta("c.yaml", std::nullopt, "a: 1\n");
  EXPECT_THAT(unknown.added, ElementsAre("a: 1"));
  EXPECT_TRUE(unknown.removed.empty());
}

}  // namespace
