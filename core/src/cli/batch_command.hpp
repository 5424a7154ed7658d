// SPDX-License-Identifier: MIT
// `repo2rocm batch`: parses its own options (docs/batch.md) and drives r2r::batch. main() hands it
// the whole command line when the first command word is `batch`, so the batch options never mix
// with the other commands' option table.
#pragma once

namespace r2r::cli {

/// argv as main() got it. Returns the process exit code.
int run_batch_main(int argc, char** argv);

/// True when the first command word of argv (after global options) is "batch".
bool is_batch_command(int argc, char** argv);

}  // namespace r2r::cli
