// SPDX-License-Identifier: MIT
// Runs the stages of `repo2rocm run` in order with resume markers and progress events.
//
// After a stage succeeds, RUN_DIR/.r2r/stages/<name>.json records its outputs (path, kind and
// size) and key results; the marker is written to a temporary file and renamed, so it is either
// complete or absent. A later run over the same directory skips a stage whose marker is present,
// whose outputs still exist with the recorded sizes, and whose restore() succeeds ("resumed").
// A stage that runs again invalidates the markers of every stage after it.
// THREADING: the calling thread only.
#pragma once

#include "run_context.hpp"

#include <string>
#include <vector>

namespace r2r::cli::run {

struct stages_outcome {
  bool completed = false;  // every stage ok, skipped or resumed
  std::string stage;       // the stage that stopped the run, when not completed
  std::string status;      // its status: failed or unavailable
  std::string message;
  bool usage = false;  // the stage failed on the operator's input (exit 2)
};

stages_outcome run_stages(run_context& ctx, const std::vector<stage_step>& steps);

/// The marker file of `stage` in `run_dir`.
std::filesystem::path stage_marker(const std::filesystem::path& run_dir, const std::string& stage);

}  // namespace r2r::cli::run
