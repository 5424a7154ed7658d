// SPDX-License-Identifier: MIT
// Refusal of degraded rewrites: compares a file before and after a proposed rewrite and names the
// first way the rewrite deletes, stubs or disables device work. Detected:
//   - fewer __global__ kernels (a kernel removed or its __global__ dropped)
//   - a kernel whose body was not empty becomes empty or starts with `return;`
//   - more `#if 0` blocks (code disabled)
//   - fewer kernel launches (<<< >>> or hipLaunchKernelGGL): replaced by a host loop or a call
//   - more framework ops (torch::, at::, thrust::): a kernel replaced by a library op
// Textual and conservative: comments are stripped from kernel bodies before the stub test.
// Pure functions; no I/O.
#pragma once

#include <string>
#include <string_view>

namespace r2r::plugins::converter::agentic {

/// Empty when `after` keeps every kernel of `before`; otherwise one sentence saying what degraded.
std::string find_degradation(std::string_view before, std::string_view after);

}  // namespace r2r::plugins::converter::agentic
