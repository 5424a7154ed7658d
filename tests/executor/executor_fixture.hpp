// SPDX-License-Identifier: MIT
// Helpers for executor tests: a pipeline of the scripted policy, the real r2r.sandbox.local and
// chosen guards, written to a temp dir with search paths to the fixture and in-tree plugin dirs.
#pragma once

#include "../unit/test_support.hpp"

#include <r2r/core/pipeline_session.hpp>
#include <r2r/executor/executor.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace r2r::test {

/// A guard stage entry for pipeline(): {"stage":"guard","name":...,"use":...,"config":...}.
nlohmann::json guard_stage(const std::string& name, const std::string& use,
                           nlohmann::json config = nlohmann::json::object());

/// Pipeline text: the guards, the scripted policy with `script` (and `usage`), the local sandbox
/// (with `sandbox_config`, or a 60 s command timeout when that is null).
nlohmann::json pipeline(const nlohmann::json& script, const std::vector<nlohmann::json>& guards = {},
                        const nlohmann::json& usage = nlohmann::json::object(),
                        const nlohmann::json& sandbox_config = nlohmann::json());

/// A live session of a pipeline file. OWNERSHIP: holds the registry the session refers to.
struct live_pipeline {
  std::unique_ptr<core::plugin_registry> registry;
  std::unique_ptr<core::pipeline_session> session;
};
live_pipeline open_pipeline(const std::filesystem::path& file);

/// Every line of a file.
std::vector<std::string> read_lines(const std::filesystem::path& file);
std::string read_text(const std::filesystem::path& file);
/// trajectory.jsonl as JSON objects.
std::vector<nlohmann::json> trajectory(const std::filesystem::path& run_dir);

}  // namespace r2r::test
