// SPDX-License-Identifier: MIT
// One command analysis for every action type that runs a shell command: `run`, `run_workload`,
// `build_kernel` and `install` in both forms ({command} and {manager, packages}, the latter as the
// command the executor runs for it). Every guard reads commands through view_action(), so the same
// command gets the same decision whatever action type carries it.
// The view sees through the scripts the agent wrote (known_files::agent_script): `sh x.sh`,
// `bash x.sh`, `./x.sh`, `source x.sh`, `bash < x.sh` and `python x.py` (its os.system / os.popen /
// subprocess lines) are analysed as the commands of the script, recursively (depth 4). Commands
// whose text is computed at run time (shell_computed.hpp) are listed; deny_computed() turns them
// into a fail-closed deny.
// THREADING: pure functions; `files` is only read.
#pragma once

#include <r2r/guards/known_files.hpp>

#include <r2r/sdk/kinds/guard.hpp>
#include <r2r/support/shell.hpp>
#include <r2r/support/shell_computed.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::guard {

struct command_view {
  std::string text;                               // the command, then the text of each script it runs
  std::vector<shell::simple_command> commands;    // of the command and of every script it runs
  std::vector<shell::computed_command> computed;  // commands whose text exists only at run time
  std::vector<std::string> scripts;               // agent-written scripts the command runs
};

/// The shell text an action runs; nullopt for action types that run no command. install's
/// {manager, packages} form becomes `pip install 'a' 'b'` (uv: `uv pip install`, apt:
/// `apt-get install -y`, conda: `conda install -y`), which is what the executor runs.
std::optional<std::string> command_text(const sdk::guard::action& action);

/// The view of `command`, with the agent's scripts from `files` expanded. `max_bytes` bounds the
/// text analysed (the command and each script are cut at it).
command_view view_command(const std::string& command, const known_files& files, std::size_t max_bytes);

/// view_command(command_text(action)) for actions that run a command; nullopt for the others.
std::optional<command_view> view_action(const sdk::guard::action& action, const known_files& files,
                                        std::size_t max_bytes);

/// A deny for the first computed command of `view` (nullopt when there is none), whose unlock says
/// to write the command out. `guard` prefixes the reason, e.g. "accelerator swap".
std::optional<sdk::guard::decision> deny_computed(const command_view& view, const std::string& guard);

/// The shell commands a Python source runs through os.system, os.popen and subprocess (string
/// literals; list literals joined by spaces, with `python` for a non-literal first element such as
/// sys.executable). Used for agent-written .py files.
std::vector<std::string> python_shell_lines(const std::string& source);

/// True for a path that a shell reads as commands when sourced or run: *.sh, *.bash, *.zsh,
/// .bashrc, .bash_profile, .profile, .zshrc, .envrc, *.env, .env.
bool is_shell_file(const std::string& path);

}  // namespace r2r::plugins::guard
