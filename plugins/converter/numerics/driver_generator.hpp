// SPDX-License-Identifier: MIT
// Generates the host driver of the numerical gate: one CUDA or HIP translation unit that includes
// the kernel's source, fills every argument deterministically from the harness spec, launches the
// kernel once, and writes every argument (inputs and outputs) as JSON to the file named by argv[1]
// (format in README.md: {"kernel", "dialect", "device", "warp_size", "grid", "block", "args": [
// {"name", "dtype", "role": "in"|"out", "values": [...]}]}). Floats are printed with enough digits
// to round-trip (%.9g / %.17g); NaN and infinities as the strings "nan", "inf", "-inf". Any failing
// runtime call exits 2 with the call and its error string on stderr.
#pragma once

#include "kernel_harness.hpp"

#include <string>

namespace r2r::plugins::converter::numerics {

enum class dialect { cuda, hip };

/// The driver source. `kernel_include` is the path the driver #includes (quoted as given).
std::string generate_driver(const harness_spec& spec, const std::string& kernel_include, dialect d);

}  // namespace r2r::plugins::converter::numerics
