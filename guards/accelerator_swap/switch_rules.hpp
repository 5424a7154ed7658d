// SPDX-License-Identifier: MIT
// Environment and config settings seen by r2r.guard.accelerator-swap, with the lists of the guard
// policy (`forbidden_environment`, `switches`): a forbidden variable set in any form, and a switch
// that turns an accelerator component off. Text-based, so one rule covers an inline assignment, an
// `export`, `env VAR=`, `docker -e VAR=`, an env file, a script, `.bashrc`, and Python's
// os.environ["VAR"] = / setdefault("VAR", ...).
#pragma once

#include <r2r/guards/guard_policy.hpp>
#include <r2r/support/shell.hpp>

#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::guard::accel {

struct switch_finding {
  std::string component;  // policy component, e.g. "xformers.disabled"
  std::string setting;    // e.g. "XFORMERS_DISABLED=1", "use_flash_attn: false"
};

/// The first forbidden variable `text` sets (not one it only reads or unsets), or nullopt.
std::optional<policy::forbidden_variable> forbidden_in(const std::string& text,
                                                       const std::vector<policy::forbidden_variable>& list);

/// Environment switches `text` sets to an "off" value.
std::vector<switch_finding> environment_switches(const std::string& text,
                                                 const std::vector<policy::switch_rule>& rules);

/// Config switches turned off by `lines` (each `key: value`, `"key": value`, `key = value`, or
/// `--key value` / `--key=value` / `key=value` words); `--no-key` / `--no_key` also turns `key` off.
std::vector<switch_finding> config_switches(const std::vector<std::string>& lines,
                                            const std::vector<policy::switch_rule>& rules);

/// The lines a command writes through sed/perl substitutions (`s/old/new/` -> "new") and the
/// argument words of its simple commands (`--use_flash_attn=false`, `model.fused=false`).
std::vector<std::string> command_setting_lines(const std::vector<shell::simple_command>& commands);

}  // namespace r2r::plugins::guard::accel
