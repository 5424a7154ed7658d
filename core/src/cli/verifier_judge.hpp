// SPDX-License-Identifier: MIT
// Stored verifier evidence re-judged through the plugin registry: the verifier kind's `judge`
// method ({plan, mode, capture} -> the verify response, running nothing), on an instance made with
// an empty configuration (the plugin's schema defaults), never with a configuration read from the
// evidence or the bundle, so a forger cannot loosen the checks that re-judge it.
#pragma once

#include <r2r/core/plugin_registry.hpp>
#include <r2r/report/bundle.hpp>

namespace r2r::cli {

/// A judge over `registry`. LIFETIME: `registry` must outlive the returned function, which keeps
/// one instance per verifier id. THREADING: not thread-safe (one caller at a time).
report::judge_function registry_judge(const core::plugin_registry& registry);

}  // namespace r2r::cli
