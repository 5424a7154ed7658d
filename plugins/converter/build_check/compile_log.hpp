// SPDX-License-Identifier: MIT
// Classifies a failed hipcc compile from its diagnostics, so a build result says what kind of
// problem it is and whether this machine can judge it at all:
//   target unknown to the toolchain       -> not_checkable_here / target_unknown
//   target unknown to its rocPRIM         -> not_checkable_here / target_unknown
//   PyTorch / Python extension headers    -> checked_in_container / needs_pytorch
//   ROCm library headers not installed    -> checked_in_container / missing_library
//   a header missing inside an installed  -> checked_in_container / missing_library
//   ROCm library's own headers (Debian's rocWMMA lacks internal/)
//   any other missing header              -> failed / missing_header
//   undeclared identifiers and types      -> failed / undeclared_identifier (names listed)
//   anything else                         -> failed / compile_error (an error in the toolchain's
//                                            headers names the project line that led there)
// Pure functions of the text; no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::converter {

struct compile_verdict {
  std::string status;         // failed | not_checkable_here | checked_in_container
  std::string failure_class;  // see above
  std::string message;        // one line: what failed and what it means
  std::vector<std::string> names;
};

compile_verdict classify_compile_failure(std::string_view compiler_output);

/// True when the output says the offload target itself is unknown to this toolchain.
bool target_unknown(std::string_view compiler_output);

/// When the first error lies in the toolchain's headers (/usr/, /opt/): "FILE:LINE" of the first
/// project location in its instantiation or macro notes (what the project wrote that led there);
/// empty otherwise.
std::string first_project_location(std::string_view compiler_output);

/// The ROCm library a header belongs to ("hipBLAS" for "hipblas/hipblas.h"), or empty.
std::string rocm_library_of(std::string_view header);

}  // namespace r2r::plugins::converter
