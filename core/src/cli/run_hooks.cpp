// SPDX-License-Identifier: MIT
// The executor, the verifiers and the audit bundle writer as stages of `repo2rocm run`. Each
// hook receives the run_context (plan, convert report, sandbox with its built image, pinned GPU,
// run directory) and returns a stage_result; verify sets ctx.verdict.
#include "run_hooks_parts.hpp"

namespace r2r::cli::run {

run_hooks build_hooks() {
  return run_hooks{run_execute, run_verify, run_bundle};
}

}  // namespace r2r::cli::run
