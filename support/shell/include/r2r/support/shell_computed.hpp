// SPDX-License-Identifier: MIT
// Commands whose text exists only when they run, so no static analysis can see what they do:
// a command name that is an expansion (`$CMD`, `$(echo pip)`, which also covers `eval "$X"` and
// `sh -c "$(...)"`, whose script's first word is an expansion), an interpreter that reads its
// program from a pipe (`curl ... | sh`, `base64 -d | bash`, `... | python`) or from a process
// substitution (`bash <(curl ...)`, `source <(...)`), and interpreter code given as an expansion
// (`python -c "$(...)"`). Guards deny these fail-closed: the unlock is to write the command out.
// A command whose *arguments* contain expansions (`pip install $PKG`) is not reported here: its
// program is visible, and each guard decides what an unknown argument means to it.
#pragma once

#include <r2r/support/shell.hpp>

#include <string>
#include <vector>

namespace r2r::shell {

struct computed_command {
  std::string what;     // e.g. "pipes text into sh", for a deny reason
  std::string command;  // the simple command, re-joined with spaces, for the message
};

/// Every command of `commands` (the output of analyze) whose text is computed at run time.
std::vector<computed_command> find_computed(const std::vector<simple_command>& commands);

/// True for shells (sh, bash, zsh, dash, ksh, ash) and script interpreters (python*, perl, ruby,
/// node, php) by program name.
bool is_interpreter(const std::string& program);

}  // namespace r2r::shell
