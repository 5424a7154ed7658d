// SPDX-License-Identifier: MIT
// Validation of proposed actions against plugin_api/schemas/action.schema.json, and the shell
// command each executable action becomes. THREADING: safe from any thread.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <variant>

namespace r2r::executor {

/// The action, normalised (an `install` given as `command` also gets `manager` and `packages`),
/// or the reason it is invalid ("/command: ... expected ...; found ...").
struct validated_action {
  bool valid = false;
  nlohmann::json action;  // normalised when valid
  std::string error;      // when invalid: every violation, one per line
};
validated_action validate_action(const nlohmann::json& proposed);

/// The shell command an install runs: the given command, or one built from manager + packages
/// (pip: python3 -m pip install; uv: uv pip install; apt: apt-get install -y; conda: conda install -y).
std::string install_command(const nlohmann::json& install_action);

/// Whether `command` is one package install and nothing else (pip, python -m pip, uv pip, apt,
/// apt-get, conda/mamba `install` with at least one argument), as support/shell parses it: no `&&`,
/// `;`, pipe, substitution, `sh -c`, leading variable assignment or redirection. Under the sandbox's
/// "install" network policy such an exec alone gets the network (docs/sandboxes.md, "Network").
bool is_package_install(const std::string& command);

/// Single-quotes `word` for /bin/sh.
std::string shell_quote(const std::string& word);

/// Actions whose failure is rolled back to the last checkpoint: install, apply_patch, switch_image,
/// and write_file on a build file (build_file()).
bool risky(const nlohmann::json& action);

/// Files that decide how the project builds or what it installs: CMakeLists.txt, *.cmake, Makefile,
/// *.mk, setup.py, setup.cfg, pyproject.toml, requirements*.txt, environment*.yml, Dockerfile,
/// meson.build, build.ninja, *.bzl, BUILD, WORKSPACE.
bool build_file(const std::string& path);

/// Actions that may change the workspace when they run (everything but read_file, checkpoint,
/// claim_success and give_up).
bool may_change_workspace(const std::string& type);

}  // namespace r2r::executor
