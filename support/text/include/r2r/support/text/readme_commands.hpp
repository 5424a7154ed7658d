// SPDX-License-Identifier: MIT
// The shell commands a README documents: every command line of its fenced shell blocks, read the
// same way for every caller (the fingerprint's workloads and install lines, Mode 0's baseline).
//   - shell blocks: no language, bash, sh, shell, zsh; session blocks: console, shell-session,
//     sh-session, bash-session (any other language, "text" included, is not a command block);
//   - in a session block only prompted lines are commands (the rest is output); in a shell block a
//     leading "$ " prompt is removed;
//   - blank lines and comment lines ("# ...") are dropped; a line ending in a backslash continues on
//     the next line (joined with one space);
//   - nothing else is changed: the command is the text as written.
// Contract: pure functions, no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace r2r::text {

enum class fence_kind { shell, session, other };

/// What a fenced block's language (fenced_block::language) holds.
fence_kind classify_fence(std::string_view language);

struct readme_command {
  std::string command;   // continuation lines joined, prompt removed
  int line = 0;          // 1-based line where the command starts
  int last_line = 0;     // 1-based line where it ends (continuations)
  std::string language;  // the block's language ("" for none)
};

/// The commands of `markdown`'s shell and session blocks, in document order.
std::vector<readme_command> readme_commands(std::string_view markdown);

}  // namespace r2r::text
