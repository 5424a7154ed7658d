// SPDX-License-Identifier: MIT
// Unit tests of the shell command analysis: every construct that can hide a sub-command.
#include <r2r/support/shell.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::shell::analyze;
using r2r::shell::origin;
using ::testing::ElementsAre;
using ::testing::Pair;

using argvs = std::vector<std::vector<std::string>>;

argvs all_argv(const std::string& command) {
  argvs out;
  for (const auto& c : analyze(command)) out.push_back(c.argv);
  return out;
}

TEST(ShellCommand, SplitsListsAndPipelines) {
  EXPECT_EQ(all_argv("a 1 && b 2 || c; d | e |& f & g\nh"),
            (argvs{{"a", "1"}, {"b", "2"}, {"c"}, {"d"}, {"e"}, {"f"}, {"g"}, {"h"}}));
}

TEST(ShellCommand, RemovesSingleDoubleAndBackslashQuoting) {
  EXPECT_EQ(all_argv(R"(echo 'a b' "c \"d\" \$e" f\ g 'it'\''s' "")"),
            (argvs{{"echo", "a b", "c \"d\" $e", "f g", "it's", ""}}));
  // Operators inside quotes are text, not separators.
  EXPECT_EQ(all_argv("echo 'x && y; z' \"p | q\""), (argvs{{"echo", "x && y; z", "p | q"}}));
}

TEST(ShellCommand, SeparatesLeadingEnvAssignments) {
  const auto cmds = analyze("CUDA_HOME=/opt/x FLAG='a b' python t.py X=1");
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_THAT(cmds[0].env, ElementsAre(Pair("CUDA_HOME", "/opt/x"), Pair("FLAG", "a b")));
  EXPECT_EQ(cmds[0].argv, (std::vector<std::string>{"python", "t.py", "X=1"}));
  // A quoted name is not an assignment; an assignment alone is a command.
  EXPECT_TRUE(analyze("'A'=1 cmd")[0].env.empty());
  const auto only = analyze("export A=1; B=2");
  ASSERT_EQ(only.size(), 2u);
  EXPECT_TRUE(only[1].argv.empty());
  EXPECT_THAT(only[1].env, ElementsAre(Pair("B", "2")));
}

TEST(ShellCommand, FindsDollarParenAndBacktickSubstitutions) {
  const auto cmds = analyze("echo \"$(pip uninstall -y flash_attn)\" `rm -rf x` $((1+2))");
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_EQ(cmds[0].argv[0], "echo");
  EXPECT_EQ(cmds[1].argv, (std::vector<std::string>{"pip", "uninstall", "-y", "flash_attn"}));
  EXPECT_EQ(cmds[1].reached_by, origin::substitution);
  EXPECT_EQ(cmds[2].argv, (std::vector<std::string>{"rm", "-rf", "x"}));
  EXPECT_EQ(all_argv("x=$(a $(b c))"), (argvs{{}, {"a", "$(b c)"}, {"b", "c"}}));
  EXPECT_EQ(all_argv("diff <(sort a) >(wc -l)"), (argvs{{"diff"}, {"sort", "a"}, {"wc", "-l"}}));
}

TEST(ShellCommand, RecursesIntoShellStringsAndEval) {
  const auto cmds = analyze(R"(bash -lc 'cd /w && pip install "nvidia-cudnn-cu12"' ; sh -c "eval 'echo hi'")");
  argvs seen;
  for (const auto& c : cmds) seen.push_back(c.argv);
  EXPECT_THAT(seen, ::testing::Contains(std::vector<std::string>{"pip", "install", "nvidia-cudnn-cu12"}));
  EXPECT_THAT(seen, ::testing::Contains(std::vector<std::string>{"echo", "hi"}));
  int strings = 0;
  for (const auto& c : cmds) strings += c.reached_by == origin::shell_string;
  EXPECT_EQ(strings, 4);  // cd and pip (bash -lc), eval (sh -c), echo (eval)
}

TEST(ShellCommand, UnwrapsCommandWrappers) {
  const auto cmds = analyze("sudo -u root env -i PIP_INDEX_URL=u nohup timeout -s KILL 10 pip install x");
  ASSERT_FALSE(cmds.empty());
  const auto& last = cmds.back();
  EXPECT_EQ(last.argv, (std::vector<std::string>{"pip", "install", "x"}));
  EXPECT_EQ(last.reached_by, origin::wrapper);
  EXPECT_THAT(last.env, ElementsAre(Pair("PIP_INDEX_URL", "u")));
  EXPECT_EQ(all_argv("echo flash_attn | xargs -n1 pip uninstall -y").back(),
            (std::vector<std::string>{"pip", "uninstall", "-y"}));
}

TEST(ShellCommand, KeepsRedirectionsOutOfArgv) {
  const auto cmds = analyze("echo OK > out.txt 2>&1; cat<in.txt >>log &>/dev/null");
  ASSERT_EQ(cmds.size(), 2u);
  EXPECT_EQ(cmds[0].argv, (std::vector<std::string>{"echo", "OK"}));
  ASSERT_EQ(cmds[0].redirects.size(), 2u);
  EXPECT_EQ(cmds[0].redirects[0].op, ">");
  EXPECT_EQ(cmds[0].redirects[0].target, "out.txt");
  EXPECT_EQ(cmds[0].redirects[1].op, ">&");
  EXPECT_EQ(cmds[1].argv, (std::vector<std::string>{"cat"}));
  ASSERT_EQ(cmds[1].redirects.size(), 3u);
  EXPECT_EQ(cmds[1].redirects[0].target, "in.txt");
  EXPECT_EQ(cmds[1].redirects[2].op, "&>");
}

TEST(ShellCommand, SkipsReservedWordsCommentsAndSubshellParens) {
  EXPECT_EQ(all_argv("if true; then (pip list); fi # pip install evil"), (argvs{{"true"}, {"pip", "list"}}));
  EXPECT_EQ(all_argv("for x in a b; do echo $x; done"), (argvs{{"echo", "$x"}}));
  EXPECT_EQ(all_argv("a \\\n b"), (argvs{{"a", "b"}}));
}

TEST(ShellCommand, ToleratesUnterminatedTextAndBoundsDepth) {
  EXPECT_EQ(all_argv("echo 'open"), (argvs{{"echo", "open"}}));
  EXPECT_EQ(all_argv("echo $(ls"), (argvs{{"echo", "$(ls"}, {"ls"}}));
  EXPECT_EQ(all_argv("diff <(ls"), (argvs{{"diff"}, {"ls"}}));
  std::string deep = "x";
  for (int k = 0; k < 20; ++k) deep = "$(" + deep + ")";
  EXPECT_LE(analyze(deep, 3).size(), 4u);
  EXPECT_EQ(r2r::shell::program_name("/usr/bin/pip3"), "pip3");
}

}  // namespace
