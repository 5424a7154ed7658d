// SPDX-License-Identifier: MIT
// The stages of `repo2rocm run` before execution: intake (RUN_DIR/source), plan (fingerprint.json,
// plan.json, Dockerfile, repo.tar), port (RUN_DIR/workspace converted in place, patch.diff,
// convert.json). Each stage's outputs are listed in its stage_result for the resume marker.
#pragma once

#include "run_context.hpp"

namespace r2r::run {

stage_step intake_step();
stage_step plan_step();
stage_step port_step();

/// The directory name of a run: <repo>-<commit12>-<UTC yyyymmddThhmmssZ>.
std::string default_run_name(const std::string& repo, const std::string& commit);

/// Writes `text` to `path` through a temporary file and a rename (complete or absent).
core::result<void> write_atomically(const std::filesystem::path& path, const std::string& text);

/// Reads a JSON file; errors name the file.
core::result<nlohmann::json> read_json(const std::filesystem::path& path);

}  // namespace r2r::run
