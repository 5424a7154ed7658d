// SPDX-License-Identifier: MIT
// The work of `repo2rocm llm ping`: which llm instance of a pipeline to try, and the request that
// tries it. THREADING: pure functions.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace r2r::run {

/// The smallest useful turn: a system prompt, one user message, a few output tokens.
nlohmann::json ping_request();

/// `instance` when given (phase usage when the pipeline has no such instance or it is not an llm
/// plugin), else the pipeline's only llm instance (phase config when it has none, usage when it has
/// several: the operator must choose with --instance).
core::result<std::string> choose_llm_instance(const core::pipeline_config& config,
                                              const core::plugin_registry& registry, const std::string& instance);

}  // namespace r2r::run
