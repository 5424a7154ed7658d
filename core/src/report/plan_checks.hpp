// SPDX-License-Identifier: MIT
// Plan-versus-executed comparisons (internal to r2r_report): the workload a verifier ran against the
// plan's, the image used against the plan's base image and ranked candidates, and the final
// environment's packages (exact pins, NVIDIA wheels). Each deviation becomes a ledger entry sourced
// "plan_check:<check>"; the facts go into pfs_inputs.
#pragma once

#include <r2r/report/ledger.hpp>
#include <r2r/report/pfs.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace r2r::report::detail {

/// Accelerator-critical components of a plan: the names of its kernel_builds, in plan order,
/// without duplicates.
std::vector<std::string> critical_components(const nlohmann::json& plan);

/// Whitespace runs collapsed to one space, ends trimmed.
std::string normalize_command(const std::string& command);

/// The plan's workload command, nullopt when the plan has none.
std::optional<std::string> planned_workload(const nlohmann::json& plan);

/// Fills the workload, image and environment facts of `in` and returns the ledger entries of the
/// deviations found.
std::vector<ledger_entry> compare_plan(const nlohmann::json& plan, const std::optional<std::string>& executed_workload,
                                       const std::string& image_used,
                                       const std::optional<std::vector<std::string>>& freeze, pfs_inputs& in);

}  // namespace r2r::report::detail
