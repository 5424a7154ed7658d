// SPDX-License-Identifier: MIT
// Reading trajectory.jsonl (one JSON object per line, written by the executor: turn, timestamp,
// action, rationale, state, usage, decision, observation, evidence) and what the bundle derives
// from it: costs and the install actions that succeeded.
#pragma once

#include <r2r/core/error.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::report {

/// Every non-empty line parsed as a JSON object; an error names the file and line.
core::result<std::vector<nlohmann::json>> parse_trajectory(std::string_view text, const std::string& name);
core::result<std::vector<nlohmann::json>> read_trajectory(const std::filesystem::path& file);

struct usage_totals {
  long long input_tokens = 0;
  long long output_tokens = 0;
  double cost_usd = 0;
  int turns = 0;  // records in the trajectory
};
usage_totals sum_usage(const std::vector<nlohmann::json>& trajectory);

struct executed_install {
  int turn = 0;
  std::string command;
  nlohmann::json index = nlohmann::json::object();  // {index_url, extra_index_urls} it used; {}: the default
};
/// The package installs that the guards allowed and that exited 0 (not timed out), in trajectory
/// order: every record the executor marked as an install (`install`: {command, index}; install
/// actions and run/build_kernel commands that are one package install), and, in trajectories
/// written before that mark, install actions: action.command, or "pip install <packages...>".
std::vector<executed_install> successful_installs(const std::vector<nlohmann::json>& trajectory);

}  // namespace r2r::report
