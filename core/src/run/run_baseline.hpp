// SPDX-License-Identifier: MIT
// Mode 0, the baseline: the README's own commands (readme_steps.hpp), unmodified and in order, in
// the sandbox on the environment image, with no agent, no port and no guards; the sandbox's
// limits and no network still apply. The workspace is a fresh copy of RUN_DIR/source. Execution
// stops at the first command that fails. Every command is logged with its exit code, duration
// and output in RUN_DIR/mode0/commands.log; RUN_DIR/mode0/steps.json holds the outcome.
#pragma once

#include "run_context.hpp"

namespace r2r::run {

/// The `execute` stage of mode 0. Its result is ok whenever the commands could be run (even when
/// one failed: that is the baseline's finding, in ctx.baseline); failed when the sandbox could not.
stage_step baseline_step();

}  // namespace r2r::run
