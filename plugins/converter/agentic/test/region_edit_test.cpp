// SPDX-License-Identifier: MIT
// Hazard regions, the strict answer format and applying edits.
#include "region_edit.hpp"
#include "prompt.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::converter::agentic;
using ::testing::HasSubstr;

r2r::sdk::converter::hazard at_line(std::int64_t line) {
  r2r::sdk::converter::hazard h;
  h.line = line;
  h.rule = "wave32-mask";
  return h;
}

TEST(AgenticRegions, WindowsAreClampedAndMerged) {
  const auto r = hazard_regions({at_line(2), at_line(5), at_line(20)}, 22, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].first, 1);
  EXPECT_EQ(r[0].last, 7);
  EXPECT_EQ(r[1].first, 18);
  EXPECT_EQ(r[1].last, 22);
}

TEST(AgenticAnswer, ParsesBlocksAndIgnoresProse) {
  const auto p = parse_answer("Here it is:\n@@ replace 3-4\nint a;\nint b;\n@@ end\nDone.\n", {{1, 10}});
  ASSERT_TRUE(p.problem.empty()) << p.problem;
  ASSERT_EQ(p.edits.size(), 1u);
  EXPECT_EQ(p.edits[0].range.first, 3);
  EXPECT_EQ(p.edits[0].replacement, "int a;\nint b;\n");
}

TEST(AgenticAnswer, RefusesEditsOutsideTheRegions) {
  EXPECT_THAT(parse_answer("@@ replace 9-12\nx\n@@ end\n", {{1, 10}}).problem, HasSubstr("not inside"));
}

TEST(AgenticAnswer, RefusesUnclosedOverlappingAndMissingBlocks) {
  EXPECT_THAT(parse_answer("@@ replace 1-2\nx\n", {{1, 10}}).problem, HasSubstr("no closing"));
  EXPECT_THAT(parse_answer("@@ replace 1-3\nx\n@@ end\n@@ replace 3-4\ny\n@@ end\n", {{1, 10}}).problem,
              HasSubstr("overlap"));
  EXPECT_THAT(parse_answer("just prose", {{1, 10}}).problem, HasSubstr("no '@@ replace"));
  EXPECT_THAT(parse_answer("@@ replace lines 1 to 2\n", {{1, 10}}).problem, HasSubstr("not '@@ replace A-B'"));
}

// Found by tests/fuzz (region_edit): a line number too large for int64 made std::stoll throw
// out of parse_answer, whose contract is to say what is wrong with the answer in `problem`.
TEST(AgenticAnswer, RefusesLineNumbersTooLargeForAnyFile) {
  EXPECT_THAT(parse_answer("@@ replace 55555555555555555555555-3\nx\n@@ end\n", {{1, 10}}).problem,
              HasSubstr("not inside"));
  EXPECT_THAT(parse_answer("@@ replace 1-99999999999999999999\nx\n@@ end\n", {{1, 10}}).problem,
              HasSubstr("not inside"));
}

TEST(AgenticAnswer, AppliesEditsByOriginalLineNumbers) {
  const std::string text = "a\nb\nc\nd\ne\n";
  const auto p = parse_answer("@@ replace 2-2\nB1\nB2\n@@ end\n@@ replace 4-5\n@@ end\n", {{1, 5}});
  ASSERT_TRUE(p.problem.empty()) << p.problem;
  EXPECT_EQ(apply_edits(text, p.edits), "a\nB1\nB2\nc\n");
}

TEST(AgenticPrompt, ShowsOnlyTheRegionsWithLineNumbersAndTargets) {
  const std::string text = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n";
  auto h = at_line(7);
  h.message = "32-bit ballot";
  const auto m = first_message("k.hip", text, {h}, {{6, 8}}, {"gfx90a", "gfx942"});
  EXPECT_THAT(m, HasSubstr("Targets: gfx90a gfx942"));
  EXPECT_THAT(m, HasSubstr("line 7 [wave32-mask] 32-bit ballot"));
  EXPECT_THAT(m, HasSubstr("6| l6\n7| l7\n8| l8\n"));
  EXPECT_THAT(m, ::testing::Not(HasSubstr("l5")));
  EXPECT_THAT(system_prompt(), HasSubstr("no CPU fallback"));
}

}  // namespace
