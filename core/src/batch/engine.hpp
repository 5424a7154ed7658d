// SPDX-License-Identifier: MIT
// The batch engine: runs every manifest entry as one `repo2rocm run` through a scheduler plugin,
// keeps batch.json (an atomic checkpoint, at most about once a second) and events.jsonl, enforces
// the spend caps, retries infrastructure failures with back-off (never a verdict), and writes the
// summary at the end. Crash safety: the engine holds OUT/.lock while it works; every attempt's
// state directory exists before the scheduler is asked (the write-ahead record that a resume
// reconciles with the checkpoint) and submit is idempotent per state directory, so a SIGKILLed
// batch resumed with --resume adopts what still runs, collects what finished, and starts what
// never started: no job runs twice, none is lost.
// THREADING: one thread; the scheduler is called from it only.
#pragma once

#include "batch_state.hpp"
#include "manifest.hpp"

#include <r2r/core/error.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace r2r::batch {

/// Calls one scheduler method (the plugin instance's call()).
using scheduler_call = std::function<core::result<nlohmann::json>(const std::string& method, const nlohmann::json&)>;

struct engine_options {
  std::filesystem::path manifest;
  std::filesystem::path out_dir;
  std::string scheduler_id = "r2r.scheduler.local";
  std::string mode = "1";
  std::string pipeline;  // absolute, or "" for the run default
  std::string arch;      // default for entries without one
  int jobs = 0;          // in flight at most; 0: the scheduler's slots
  bool resume = false;
  caps limits;
  std::vector<std::string> runner;                      // argv prefix of `repo2rocm` (binary and global options)
  int max_attempts = 3;                                 // per job, for infrastructure failures
  double retry_backoff_s = 2;                           // doubled per attempt
  double poll_max_s = 0.5;                              // longest wait between status polls
  double save_interval_s = 1.0;                         // batch.json checkpoints at most this often
  std::function<void(const nlohmann::json&)> on_event;  // also every event, e.g. for stdout
};

struct engine_result {
  int exit_code = 0;  // 0 all verified/ran, 3 some not verified or not started, 1 errors
  nlohmann::json summary;
};

/// Runs (or resumes) the batch. Usage problems (OUT holds another batch, --resume without one,
/// a manifest that changed) come back as errors of phase config.
core::result<engine_result> run_batch(const engine_options& options, const scheduler_call& scheduler);

/// The argv of one job: runner + run SOURCE --run-dir DIR --json --gpu {gpu} --mode M [...].
std::vector<std::string> job_argv(const engine_options& options, const job_record& job);

/// The caps check: "" while under every cap, else the sentence that says which cap stopped the batch.
std::string cap_reached(const caps& limits, const spend& spent);

/// Is this ended attempt an infrastructure failure (retry) rather than a run's own result?
bool infrastructure_failure(const std::string& scheduler_state, const std::optional<int>& exit_code,
                            const run_outcome& run, std::string& why);

}  // namespace r2r::batch
