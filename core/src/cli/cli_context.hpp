// SPDX-License-Identifier: MIT
// What every command receives: the parsed global options and helpers to build the plugin search
// path and registry the same way everywhere.
#pragma once

#include <r2r/core/plugin_registry.hpp>
#include <r2r/core/search_path.hpp>

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::cli {

struct cli_context {
  std::vector<std::string> words;  // positional words after the command name(s)
  std::vector<std::string> plugin_paths;
  bool json = false;
  std::string pipeline;                        // --pipeline, when given
  std::map<std::string, std::string> options;  // further command options by name (plan: commit, arch, out, ...)
  std::string arch;                            // --arch (port): comma-separated gfx targets
  std::string rocm;                            // --rocm (port): target ROCm release
  std::string out_dir;                         // --out (port)
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;

  /// options[name], or "" when the option was not given.
  std::string option(const std::string& name) const {
    auto it = options.find(name);
    return it == options.end() ? std::string() : it->second;
  }

  /// The search path for this invocation; pipeline_paths/pipeline_dir from a pipeline file if any.
  std::vector<core::search_location> search_path(const std::vector<std::string>& pipeline_paths = {},
                                                 const std::string& pipeline_dir = {}) const;
};

/// Prints `e` as one line to err (or as {"error":…} JSON to out when --json) and returns `code`.
int report_error(const cli_context& ctx, const core::error& e, int code);

int run_plugins_list(const cli_context& ctx);
int run_plugins_describe(const cli_context& ctx);
int run_plugins_call(const cli_context& ctx);
int run_validate(const cli_context& ctx);
int run_sandbox_doctor(const cli_context& ctx);
int run_plan(const cli_context& ctx);
int run_port(const cli_context& ctx);
int run_llm_ping(const cli_context& ctx);
int run_run(const cli_context& ctx);
int run_execute(const cli_context& ctx);
int run_resume(const cli_context& ctx);
int run_verify(const cli_context& ctx);
int run_verify_evidence(const cli_context& ctx);

}  // namespace r2r::cli
