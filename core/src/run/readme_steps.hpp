// SPDX-License-Identifier: MIT
// The commands of a repository's README, in order, as Mode 0 runs them: the commands that
// support/text's one README command parser (r2r/support/text/readme_commands.hpp) reads from
// README.md, the same the planner reads its workloads and install lines from. A `git clone` of the project and the
// `cd` into its clone are skipped with the reason (the workspace is that clone). Nothing else is
// changed: the baseline runs the instructions as written.
// THREADING: pure function over the file system.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::run {

struct readme_command {
  std::string command;
  int line = 0;         // 1-based line of the README where the command starts
  std::string skipped;  // empty: runs; else why it is not run
};

struct readme_commands {
  std::string readme;  // file name relative to the tree; empty: no README found
  std::vector<readme_command> commands;
};

readme_commands extract_readme_commands(const std::filesystem::path& tree);

}  // namespace r2r::run
