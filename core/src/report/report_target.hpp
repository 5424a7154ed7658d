// SPDX-License-Identifier: MIT
// The Mode 2 target as report.json shows it: the planned value (from the paper or the README, with
// its page, table and row for a paper), the measured value the verifiers reported, and the
// tolerance. Pure; private to r2r_report.
#pragma once

#include <nlohmann/json.hpp>

namespace r2r::report::detail {

/// report.target from plan.metric (an object) and the report's metrics; null when the plan has none.
nlohmann::json report_target(const nlohmann::json& plan_metric, const nlohmann::json& metrics);

}  // namespace r2r::report::detail
