// SPDX-License-Identifier: MIT
#include <r2r/support/text/fences.hpp>

#include <gtest/gtest.h>

namespace {

using r2r::text::fenced_blocks;

TEST(Fences, BlocksWithLanguagesAndLines) {
  const auto b = fenced_blocks("# T\n```bash\npip install x\n```\ntext\n~~~ {.python title=x}\nimport y\n~~~\n");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].language, "bash");
  EXPECT_EQ(b[0].open_line, 2);
  EXPECT_EQ(b[0].close_line, 4);
  ASSERT_EQ(b[0].lines.size(), 1u);
  EXPECT_EQ(b[0].lines[0], "pip install x");
  EXPECT_EQ(b[1].language, "python");
  EXPECT_EQ(b[1].info, "{.python title=x}");
}

TEST(Fences, ALongerFenceHoldsShorterOnesAndOnlyItsOwnCharacterClosesIt) {
  const auto b = fenced_blocks("````md\n```bash\nx\n```\n~~~\n````\nafter\n");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].lines.size(), 4u);
  EXPECT_EQ(b[0].close_line, 6);
}

TEST(Fences, AClosingFenceWithAnInfoStringDoesNotClose) {
  // The attack: a line "```python" inside a block must not end it and start a new one.
  const auto b = fenced_blocks("```\na\n```python\nb\n```\n");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].lines.size(), 3u);
}

TEST(Fences, InlineCodeIsNotAFence) {
  EXPECT_TRUE(fenced_blocks("use ```x``` inline\n``two``\n").empty());
}

TEST(Fences, UnclosedRunsToTheEndAndCrlfAndIndentationAreAccepted) {
  const auto b = fenced_blocks("1. step\r\n   ```sh\r\n   make\r\n");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].close_line, 0);
  ASSERT_EQ(b[0].lines.size(), 1u);
  EXPECT_EQ(b[0].lines[0], "   make");
}

}  // namespace
