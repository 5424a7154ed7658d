// SPDX-License-Identifier: MIT
// The Mode 2 target from a paper (--paper): the plan's `paper` section (reader, candidates with
// their tie to the workload) and, when exactly one candidate is tied, the plan's `metric` with the
// paper's page, table and row, its extractor and tolerance class. Private to r2r_planning.
#pragma once

#include <r2r/paper/document.hpp>
#include <r2r/paper/rank.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace r2r::planning {

struct paper_target {
  nlohmann::json section;  // plan.paper
  nlohmann::json metric;   // plan.metric: null or the target
  std::string note;        // plan.metric_note
};

/// Reads nothing but `tree` (the workload's config files and README, see paper/target.hpp).
/// `model`, when set, is asked to rank the candidates when the deterministic tie leaves several
/// tied and no target (paper/rank.hpp); its pick is taken only when tied, and its failure or a
/// malformed reply leaves the deterministic result with a note. plan.paper.ranking records it.
paper_target plan_paper_target(const paper::document& doc, const std::filesystem::path& tree,
                               const nlohmann::json& workload, const paper::model_call& model = {},
                               const std::string& instance = {});

}  // namespace r2r::planning
