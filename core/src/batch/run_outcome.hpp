// SPDX-License-Identifier: MIT
// What one `repo2rocm run` directory says about its run, read from its files alone (events.jsonl,
// run.json, bundle/report.json, execute/trajectory.jsonl): the verdict and exit code, the failed
// checks or the failed stage, PFS, turns, tokens, USD and wall time. This is how the batch learns a
// run's result, and how `repo2rocm batch report` rebuilds a summary with no batch state at all.
// THREADING: a pure function over the file system.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace r2r::batch {

struct run_outcome {
  bool has_verdict = false;
  std::string outcome;  // verified, not_verified, no_device, baseline_ran, baseline_failed, error
  int exit_code = -1;
  std::string message;
  std::vector<std::string> failed_checks;
  std::string failed_stage;  // the stage that failed, for outcome error
  std::string mode;          // "0", "1", "2" as run.json (or run_started) says
  std::string source, commit;
  std::string gpu;  // the gfx run_started reported, when one
  std::optional<double> pfs;
  long long turns = 0, input_tokens = 0, output_tokens = 0;
  double usd = 0;
  double wall_seconds = 0;
  int runs_started = 0;  // run_started events: 1 for a run never resumed
};

run_outcome read_run_outcome(const std::filesystem::path& run_dir);

nlohmann::json to_json(const run_outcome& o);

}  // namespace r2r::batch
