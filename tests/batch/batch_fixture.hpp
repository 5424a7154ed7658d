// SPDX-License-Identifier: MIT
// Shared by the batch tests: the repo2rocm binary with the build's plugins, the stand-in runner
// (fake_run.sh), fake KFD topologies, and readers for a batch directory.
#pragma once

#include "../unit/test_support.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace r2r::test::batch {

/// `repo2rocm --plugin-path <plugins> batch ARGS` (a shell command line; stdout is JSON events).
std::string batch_command(const std::string& args);

/// The stand-in `repo2rocm run` (tests/batch/fake_run.sh).
std::string fake_runner();

/// A KFD topology with `gpus` gfx942 GPUs (render minors 128, 136, ...) under `root`.
void write_fake_gpus(const temp_dir& root, int gpus);

std::vector<nlohmann::json> read_events(const std::filesystem::path& batch_dir);
nlohmann::json read_json_file(const std::filesystem::path& path);

/// Lines of RUN_DIR/invocations: how many times the runner started in that run directory.
int invocations(const std::filesystem::path& run_dir);

/// key -> result of summary.json's rows.
std::map<std::string, std::string> results(const std::filesystem::path& batch_dir);

/// True when `pid` is a live repo2rocm process (its /proc/PID/exe is the binary under test): what a
/// test SIGKILLs is then the batch controller itself, not a shell around it.
bool is_repo2rocm(int pid);

/// Per GPU, the [started_at, finished_at] intervals of every ended attempt (job_finished,
/// job_retry events; an attempt reported again after a kill counts once) must not overlap.
/// Returns the overlaps found, described.
std::vector<std::string> gpu_overlaps(const std::vector<nlohmann::json>& events);

}  // namespace r2r::test::batch
