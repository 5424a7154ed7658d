// SPDX-License-Identifier: MIT
#include <r2r/support/text/readme_commands.hpp>

#include <gtest/gtest.h>

namespace {

using r2r::text::fence_kind;
using r2r::text::readme_commands;

TEST(ReadmeCommands, ShellBlocksPromptsCommentsAndContinuations) {
  const auto c = readme_commands(
      "```bash\n# install\n$ pip install -r requirements.txt\n\npython train.py \\\n  --epochs 3\n```\n");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].command, "pip install -r requirements.txt");
  EXPECT_EQ(c[0].line, 3);
  EXPECT_EQ(c[1].command, "python train.py --epochs 3");
  EXPECT_EQ(c[1].line, 5);
  EXPECT_EQ(c[1].last_line, 6);
  EXPECT_EQ(c[1].language, "bash");
}

TEST(ReadmeCommands, SessionBlocksKeepOnlyPromptedLines) {
  const auto c = readme_commands("```console\n$ python eval.py\naccuracy 91.2\n$ ls\n```\n");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].command, "python eval.py");
  EXPECT_EQ(c[1].command, "ls");
}

TEST(ReadmeCommands, NonShellLanguagesAreNotCommands) {
  // A Python snippet or program output in a text block is never run nor read as a workload.
  const auto c = readme_commands("```python\nimport os\nos.system('rm -rf /')\n```\n```text\npython x.py\n```\n");
  EXPECT_TRUE(c.empty());
}

TEST(ReadmeCommands, OneLanguageTableForEveryCaller) {
  EXPECT_EQ(r2r::text::classify_fence(""), fence_kind::shell);
  EXPECT_EQ(r2r::text::classify_fence("zsh"), fence_kind::shell);
  EXPECT_EQ(r2r::text::classify_fence("shell-session"), fence_kind::session);
  EXPECT_EQ(r2r::text::classify_fence("text"), fence_kind::other);
  EXPECT_EQ(r2r::text::classify_fence("cmd"), fence_kind::other);
}

TEST(ReadmeCommands, BracedLanguageAndNestedListBlocks) {
  const auto c = readme_commands("- run:\n\n    ```{.bash}\n    python -m pkg.train\n    ```\n");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].command, "python -m pkg.train");
  EXPECT_EQ(c[0].line, 4);
}

}  // namespace
