// SPDX-License-Identifier: MIT
// RUN_DIR/run.json: everything resume needs that the trajectory does not hold — the pipeline file
// (path and content hash), the plan, caps and options, the first image and the first checkpoint.
// Written atomically once, when the run starts.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/executor/executor.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace r2r::executor {

/// FNV-1a 64 of a file's bytes as "fnv1a64:<16 hex digits>".
core::result<std::string> file_hash(const std::filesystem::path& file);

nlohmann::json options_to_json(const run_options& options);
/// The recorded options; hooks are left empty.
core::result<run_options> options_from_json(const nlohmann::json& j);

}  // namespace r2r::executor
