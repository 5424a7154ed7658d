// SPDX-License-Identifier: MIT
// The PFS facts recorded in a report.json (internal to r2r_report): pfs.inputs plus the verdict,
// the evidence kinds and the ledger, so the score is recomputed from the report alone.
#pragma once

#include <r2r/report/pfs.hpp>

#include <nlohmann/json.hpp>

namespace r2r::report::detail {

/// Fails naming the report.json field that is malformed.
core::result<pfs_inputs> pfs_facts(const nlohmann::json& report);

}  // namespace r2r::report::detail
