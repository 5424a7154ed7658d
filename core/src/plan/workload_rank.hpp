// SPDX-License-Identifier: MIT
// The workload ranker: which of a repository's commands the plan runs, and why.
// Contract: every runnable entry point gets a score from named parts (its source, its kind, whether
// it is the repository's own entry point, whether it is a helper); the highest score wins, ties
// going to the command documented first. The result names the reasons and lists every other
// candidate with its README/script line, score and why it ranked below. Not runnable entry points
// are appended to `rejected`. Pure function.
#pragma once

#include <r2r/planning/fingerprint.hpp>

#include <nlohmann/json.hpp>

namespace r2r::planning::detail {

/// The workload object of plan.json (null when nothing is runnable).
nlohmann::json rank_workloads(const fingerprint& fp, nlohmann::json& rejected);

}  // namespace r2r::planning::detail
