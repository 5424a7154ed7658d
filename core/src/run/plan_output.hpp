// SPDX-License-Identifier: MIT
// Output of `repo2rocm plan`: the files of the output directory and the human summary.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/planning/fingerprint.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <ostream>

namespace r2r::run {

/// Writes `out/repo.tar`: `worktree` without any `.git` entry (the Dockerfile's build context).
core::result<void> export_tree(const std::filesystem::path& worktree, const std::filesystem::path& out);

/// Writes `text` to `path` atomically (executor::write_file_atomic: temporary sibling, fsync, rename).
core::result<void> write_text(const std::filesystem::path& path, const std::string& text);

/// Frameworks, kernels, hazards, the top three images with scores and why, and the workload.
void print_summary(std::ostream& out, const planning::fingerprint& fp, const nlohmann::json& plan,
                   const std::filesystem::path& dir);

}  // namespace r2r::run
