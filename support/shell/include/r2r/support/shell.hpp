// SPDX-License-Identifier: MIT
// Static analysis of a POSIX shell command line: every simple command it would run, found through
// `&&`, `||`, `;`, `&`, `|`, newlines, `( )`, `$( )`, backticks, `<( )`/`>( )`, `bash -c '...'`
// (sh, zsh, dash, ksh too), `eval`, and command wrappers (`env`, `sudo`, `nohup`, `exec`, `command`,
// `nice`, `timeout`, `time`, `stdbuf`). Words are returned after quote removal (single, double,
// backslash); expansions (`$VAR`, `$(...)`) stay as written in the word. It is a guard's view, not
// an interpreter: it never executes anything, and over-approximates rather than misses a command.
// Heredoc bodies and control-flow semantics are not interpreted (reserved words are skipped).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace r2r::shell {

/// How a simple command was reached.
enum class origin {
  top_level,     // written directly in the analysed text
  substitution,  // inside $( ), backticks or <( ) / >( )
  shell_string,  // the script of `bash -c`, `sh -c`, `eval`
  wrapper,       // the command run by `env`, `sudo`, `nohup`, `timeout`, ...
};

struct redirect {
  std::string op;      // ">", ">>", "<", "<<", "<<<", ">&", "&>", ">|", "<>"
  std::string target;  // the word after the operator, quotes removed
};

struct simple_command {
  std::vector<std::pair<std::string, std::string>> env;  // leading NAME=value assignments, in order
  std::vector<std::string> argv;                         // may be empty (assignment-only command)
  std::vector<redirect> redirects;
  origin reached_by = origin::top_level;
  int depth = 0;                          // 0 at top level, +1 per substitution, shell string or wrapper
  bool stdin_piped = false;               // after `|` or `|&`: its standard input is the previous command's output
  std::size_t process_substitutions = 0;  // `<( )` / `>( )` among its words (their text is not in argv)
};

/// Every simple command of `command`, in textual order (a command's substitutions come after it).
/// Unterminated quotes or substitutions are closed at the end of the text. `max_depth` bounds
/// recursion into nested shells; deeper text is not analysed further.
std::vector<simple_command> analyze(std::string_view command, int max_depth = 8);

/// The last path component of a command name ("/usr/bin/pip3" -> "pip3").
std::string program_name(std::string_view argv0);

}  // namespace r2r::shell
