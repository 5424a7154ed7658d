// SPDX-License-Identifier: MIT
// The execute, verify and bundle stages of `repo2rocm run` (run_execute.cpp, run_verify.cpp,
// run_bundle.cpp), registered as stage handlers by the engine (engine.cpp).
#pragma once

#include "run_context.hpp"
#include "run_environment.hpp"

namespace r2r::run {

stage_result run_execute(run_context& ctx);
/// Sets ctx.verdict; writes RUN_DIR/verify.json (the verifiers' responses, in pipeline order).
stage_result run_verify(run_context& ctx);
/// Reads RUN_DIR/verify.json; writes RUN_DIR/bundle atomically and re-checks it.
stage_result run_bundle(run_context& ctx);

}  // namespace r2r::run
