// SPDX-License-Identifier: MIT
// Setting up `repo2rocm batch` around the engine (engine.hpp): the scheduler plugin's config as the
// command line gives it, the argv prefix every job runs, the scheduler instance the engine drives,
// and `batch report`, which rebuilds the summary from run directories alone.
// OWNERSHIP: run_with_scheduler owns the registry and the scheduler instance for the whole call.
// THREADING: one thread.
#pragma once

#include "engine.hpp"

#include <r2r/core/error.hpp>
#include <r2r/core/search_path.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::batch {

/// The scheduler plugin's config: `config_text` (JSON text, @FILE, or "" for {}) with `gpus`
/// ("0,1,2"; "" for none) as its "gpus" array. --gpus is only for r2r.scheduler.local. Errors of
/// phase usage say which option is wrong.
core::result<nlohmann::json> scheduler_config(const std::string& scheduler_id, const std::string& config_text,
                                              const std::string& gpus);

/// The argv prefix of every job: this binary (or $R2R_BATCH_RUNNER when set, a program taking the
/// same arguments, for tests and benchmarks), then each plugin path made absolute and the log level.
std::vector<std::string> runner_argv(const std::vector<std::string>& plugin_paths, const std::string& log_level);

/// Loads the plugin registry from `search_path`, creates the scheduler `options.scheduler_id` with
/// `config` and runs (or resumes) the batch through it. A scheduler that is not on the path is an
/// error of phase config (the operator's to fix), as are the engine's usage problems.
core::result<engine_result> run_with_scheduler(const engine_options& options,
                                               const std::vector<core::search_location>& search_path,
                                               const nlohmann::json& config);

/// `batch report DIR`: the summary rebuilt from DIR/runs/* (or DIR/* when DIR has no runs/) and
/// written to DIR. Phase usage when no run directory (one holding events.jsonl) is found.
core::result<nlohmann::json> rebuild_summary(const std::filesystem::path& dir);

}  // namespace r2r::batch
