// SPDX-License-Identifier: MIT
// Environment and config settings seen by r2r.guard.accelerator-swap, with the lists of the guard
// policy (`forbidden_environment`, `switches`): a forbidden variable set in any form, and a switch
// that turns an accelerator component off. Text-based, so one rule covers an inline assignment, an
// `export`, `env VAR=`, `docker -e VAR=`, an env file, a script, `.bashrc`, and Python's
// os.environ["VAR"] = / setdefault("VAR", ...).
#pragma once

#include <r2r/guards/guard_policy.hpp>
#include <r2r/support/shell.hpp>

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace r2r::plugins::guard::accel {

struct switch_finding {
  std::string component;  // policy component, e.g. "xformers.disabled"
  std::string setting;    // e.g. "XFORMERS_DISABLED=1", "use_flash_attn: false"
};

/// The policy's `forbidden_environment` and `switches` lists with every pattern compiled once, at
/// guard creation: the guard runs on every proposed action, and compiling a std::regex costs far
/// more than matching one. Holds copies of the lists, so it outlives the policy it was built from.
/// Immutable after construction; its const methods are safe to call from several threads.
class switch_matcher {
 public:
  /// The matcher of these lists, shared: built on the first call for a given content and kept for
  /// the life of the process (a process loads a handful of policies), because guards are created
  /// per run and per test case and the built-in policy's patterns take milliseconds to compile.
  /// Thread-safe.
  static std::shared_ptr<const switch_matcher> shared(const std::vector<policy::switch_rule>& rules,
                                                      const std::vector<policy::forbidden_variable>& forbidden);

  /// The patterns come from a parsed policy (policy::parse compiles each to reject a bad one), so
  /// std::regex_error is not expected here; it propagates if it happens.
  switch_matcher(const std::vector<policy::switch_rule>& rules,
                 const std::vector<policy::forbidden_variable>& forbidden);

  /// The first forbidden variable `text` sets (not one it only reads or unsets), or nullopt.
  std::optional<policy::forbidden_variable> forbidden_in(const std::string& text) const;

  /// Environment switches `text` sets to an "off" value.
  std::vector<switch_finding> environment_switches(const std::string& text) const;

  /// Config switches turned off by `lines` (each `key: value`, `"key": value`, `key = value`, or
  /// `--key value` / `--key=value` / `key=value` words); `--no-key` / `--no_key` also turns `key` off.
  std::vector<switch_finding> config_switches(const std::vector<std::string>& lines) const;

 private:
  struct compiled_rule {
    policy::switch_rule rule;
    std::regex name;  // environment: an assignment of the variable (group 3 is the value); config: the key
    std::regex off;   // the whole value that turns the component off
  };
  struct compiled_variable {
    policy::forbidden_variable variable;
    std::regex assignment;
  };
  std::vector<compiled_rule> environment_;
  std::vector<compiled_rule> config_;
  std::vector<compiled_variable> forbidden_;
};

/// The lines a command writes through sed/perl substitutions (`s/old/new/` -> "new") and the
/// argument words of its simple commands (`--use_flash_attn=false`, `model.fused=false`).
std::vector<std::string> command_setting_lines(const std::vector<shell::simple_command>& commands);

}  // namespace r2r::plugins::guard::accel
