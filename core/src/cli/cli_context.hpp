// SPDX-License-Identifier: MIT
// What every command receives: the parsed global options and helpers to build the plugin search
// path and registry the same way everywhere.
#pragma once

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/plugin_registry.hpp>
#include <r2r/core/search_path.hpp>

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
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
  std::string log_level = "warn";              // --log-level, passed on to child processes (batch jobs)
  std::map<std::string, std::vector<std::string>> lists;  // multi-token options (batch: --emit k8s DIR)
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;

  /// options[name], or "" when the option was not given.
  std::string option(const std::string& name) const {
    auto it = options.find(name);
    return it == options.end() ? std::string() : it->second;
  }

  /// options[name] as a non-negative number of type T, `fallback` when not given; an error of phase
  /// usage naming the option when the text is not such a number.
  template <class T>
  core::result<T> number(const std::string& name, T fallback) const {
    auto it = options.find(name);
    if (it == options.end()) return fallback;
    try {
      std::size_t used = 0;
      T value{};
      if constexpr (std::is_floating_point_v<T>) {
        value = static_cast<T>(std::stod(it->second, &used));
      } else {
        value = static_cast<T>(std::stoll(it->second, &used));
      }
      if (used == it->second.size() && value >= 0) return value;
    } catch (const std::exception&) {
    }
    return core::fail(core::phase::usage, "--" + name + " must be a non-negative number; found '" + it->second + "'");
  }

  /// The search path for this invocation; pipeline_paths/pipeline_dir from a pipeline file if any.
  std::vector<core::search_location> search_path(const std::vector<std::string>& pipeline_paths = {},
                                                 const std::string& pipeline_dir = {}) const;
};

/// Prints `e` as one line to err (or as {"error":…} JSON to out when --json) and returns `code`.
int report_error(const cli_context& ctx, const core::error& e, int code);

/// report_error with the code the error's phase calls for: usage and config problems are the
/// operator's to fix (exit_usage), anything else failed while doing the work (exit_error).
int report_failure(const cli_context& ctx, const core::error& e);

/// Every problem of a pipeline that did not parse, one per line, as an error of phase config.
core::error pipeline_error(const core::parsed_pipeline& parsed, const std::string& file = {});

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
int run_batch(const cli_context& ctx);
int run_batch_report(const cli_context& ctx);

}  // namespace r2r::cli
