// SPDX-License-Identifier: MIT
// A real open-access paper (tests/data/papers/README.md): read whole, tables found, and no
// invented candidates from a statistics paper without metric results.
#include "../unit/test_support.hpp"

#include <r2r/paper/candidates.hpp>
#include <r2r/paper/target.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

namespace paper = r2r::paper;

TEST(PaperReal, Lme4JssArticle) {
  const auto pdf = r2r::test::env_path("R2R_SOURCE_DIR") / "tests/data/papers/lme4-bates-2015-jss.pdf";
  const auto doc = paper::load_paper(pdf);
  ASSERT_TRUE(doc.has_value()) << doc.error().message;
  EXPECT_EQ(doc->pages, 51);
  EXPECT_EQ(doc->lines.front().text(), "Fitting Linear Mixed-Effects Models Using lme4");
  bool intervals = false;
  for (const auto& t : paper::extract_tables(*doc)) intervals |= t.page == 38 && t.rows.size() == 6;
  EXPECT_TRUE(intervals) << "the six-row table of R output on page 38";
  const auto candidates = paper::extract_candidates(*doc);
  EXPECT_TRUE(candidates.empty()) << paper::describe(candidates.front());
  const auto choice = paper::choose_target(candidates, paper::tie_context{});
  EXPECT_FALSE(choice.index.has_value());
  EXPECT_THAT(choice.note, ::testing::HasSubstr("no Mode 2 target: the paper reports no result"));
}

}  // namespace
