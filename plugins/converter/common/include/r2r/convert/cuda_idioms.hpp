// SPDX-License-Identifier: MIT
// Deterministic ports of the CUDA idioms hipify's name tables leave undone, run before the rename
// pass of convert_source. Each port keeps CUDA's semantics on AMD's wave64 (and wave32) hardware
// and leaves a diagnostic (category "ported", or "manual_port" where no safe port exists):
//
//   __shfl*_sync(FULL, v, x[, w])      -> __shfl*(v, x, w or 32): the width-32 segments of a wave64
//                                         are CUDA's 32-lane warps, so lane numbering is unchanged
//   __shfl*_sync(other mask, ...)      -> left, manual_port (a partial mask needs a rewrite)
//   __ballot_sync/__any_sync/__all_sync(FULL, p), __activemask()
//                                      -> r2r_ballot32/r2r_any32/r2r_all32/r2r_activemask32: the 32
//                                         bits of the lane's own 32-lane half of the 64-bit ballot
//   __syncwarp(...)                    -> r2r_syncwarp(): wavefront fence + wave barrier
//   #if(n)def / defined(__CUDA_ARCH__) -> __HIP_DEVICE_COMPILE__; a comparison with an SM number is
//                                         left and reported (manual_port) with the gfx features to test
//   __ldcs/__ldlu/__ldcv, __stcs/__stwt -> nontemporal load/store helpers; __ldcg/__ldca, __stcg/
//                                         __stwb -> plain load/store helpers
//   __trap()                           -> __builtin_trap()
//   NVTX (nvToolsExt.h, nvtxRangePushA/Pop, nvtxMarkA, ...) -> rocTX (roctracer/roctx.h)
// A mask spelled as an object-like macro of the file (#define FULL_MASK 0xffffffff) is resolved, and
// so is a variable of the file declared with a full-mask initializer and never written again
// (`unsigned mask = 0xffffffff;` ... `__any_sync(mask, p)`).
//   nv_bfloat16/__nv_bfloat16(2), cuda_bf16.h -> __hip_bfloat16(2), hip/hip_bf16.h; the bf16
//                                         conversions HIP names alike (__float2bfloat16, ...) are kept
//   __nv_bfloat16_raw/__nv_bfloat162_raw -> __hip_bfloat16_raw/__hip_bfloat162_raw
//   unqualified isfinite/isinf/isnan/signbit/isnormal/fpclassify calls -> <math.h> added (math block):
//                                         cuda_runtime.h declares them for host code in the global
//                                         namespace, hip_runtime.h only for device code
//   CUDA runtime include guards probed by helper headers (__CUDA_RUNTIME_H__, __DRIVER_TYPES_H__,
//                                         __cuda_cuda_h__) -> HIP_INCLUDE_HIP_HIP_RUNTIME_H
//
// A file that uses a helper, or kernel built-ins without a runtime include, gets one guarded block
// (helpers_block()) placed before its first directive: it defines the helpers and includes
// <hip/hip_runtime.h>. The block is added at most once (its guard is checked) and lines keep their
// numbers in the rest of the port because the block goes in last (insert_helpers).
// THREADING: pure functions of their input.
#pragma once

#include <r2r/sdk/kinds/converter.hpp>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::converter {

struct idiom_port {
  std::string text;
  bool needs_helpers = false;  // the text uses an r2r_* helper or kernel built-ins without a runtime include
  bool needs_math = false;     // the text calls a C99 classification function without including <math.h>
  std::map<std::string, std::int64_t> stats;  // idioms_ported, idioms_left
  /// CUDA names HIP provides under the same name once the port's header is included (the bf16
  /// conversions of hip/hip_bf16.h): the rename pass must neither rename nor report them.
  std::set<std::string, std::less<>> same_in_hip;
  std::vector<sdk::converter::diagnostic> diagnostics;
};

/// Ports the idioms above in `text` (C/C++/CUDA source). Text the lexer cannot read is returned unchanged.
idiom_port port_cuda_idioms(std::string_view path, std::string_view text);

/// The helper block the port inserts; starts with `#ifndef R2R_CUDA_IDIOMS_H`.
std::string_view helpers_block();

/// The block added for needs_math; starts with `#ifndef R2R_CUDA_MATH_H`.
std::string_view math_helpers_block();

/// `text` with helpers_block() inserted at the start of the line of its first directive or
/// declaration (after a leading `#pragma once`), unless the text already holds it. `at_line`: the
/// 1-based line the block starts on; `lines_added`: its line count (both 0 when nothing was added).
std::string insert_helpers(std::string_view text, std::int64_t& at_line, std::int64_t& lines_added);

/// insert_helpers for any helper `block` whose first line is its `#ifndef GUARD` (checked for).
std::string insert_block(std::string_view text, std::string_view block, std::int64_t& at_line,
                         std::int64_t& lines_added);

}  // namespace r2r::plugins::converter
