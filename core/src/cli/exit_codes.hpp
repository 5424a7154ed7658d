// SPDX-License-Identifier: MIT
// Process exit codes of repo2rocm (README "Exit codes"). Only main() and the command functions
// it dispatches to map errors to these.
#pragma once

namespace r2r::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_error = 1;         // a failure while doing the work
inline constexpr int exit_usage = 2;         // bad command line or invalid configuration
inline constexpr int exit_not_verified = 3;  // run: verification ran and failed (mode 0: a README step failed)
inline constexpr int exit_no_device = 4;     // run: no ROCm device to verify on

}  // namespace r2r::cli
