// SPDX-License-Identifier: MIT
// The executor, the verifiers and the audit bundle writer as stages of `repo2rocm run`. Each
// hook receives the run_context (plan, convert report, sandbox with its built image, pinned GPU,
// run directory) and returns a stage_result; verify sets ctx.verdict. A hook left empty is
// reported "not available in this build" and the run exits 1.
#include "run_context.hpp"

namespace r2r::cli::run {

run_hooks build_hooks() {
  return run_hooks{};
}

}  // namespace r2r::cli::run
