// SPDX-License-Identifier: MIT
// nvcuda::wmma -> rocWMMA, run after the cooperative-groups port and before the rename pass of
// convert_source. rocWMMA keeps CUDA's API shape (fragment<use, M, N, K, T, layout>, fill_fragment,
// load_matrix_sync, mma_sync, store_matrix_sync, mem_row_major/mem_col_major), so the port is a
// namespace change, made only when every fragment of the file has a shape and type rocWMMA
// supports on gfx90a, gfx942 and gfx950:
//   m16n16k16 with half/__half for matrix_a/matrix_b and float/half/__half accumulators.
// Then: <mma.h> -> <rocwmma/rocwmma.hpp>, nvcuda::wmma:: -> rocwmma::, `using namespace nvcuda;`
// -> `namespace wmma = rocwmma;` (and every wmma:: -> rocwmma::), `using namespace nvcuda::wmma;`
// -> `using namespace rocwmma;`, `namespace X = nvcuda::wmma;` -> `namespace X = rocwmma;`; one
// warning per file says that a rocWMMA fragment belongs to a 64-lane wavefront on gfx9.
// Otherwise nothing in the file is changed and each fragment that blocks the port is reported
// (manual_port) with its shape or type and why: m32n8k16/m8n32k16/m8n8k4 have no rocWMMA block on
// gfx9 (BlockM and BlockN are 16 or 32), bf16 fragments (rocWMMA's bfloat16_t is hip_bfloat16,
// not __hip_bfloat16), tf32/int8/sub-byte fragments (per-gfx support differs), shapes that are not
// literals or constants of the file. M, N and K may be integer literals, object-like #defines or
// `const`/`constexpr` integer variables of the file.
// THREADING: pure function of its input.
#pragma once

#include <r2r/convert/cuda_idioms.hpp>

#include <string_view>

namespace r2r::plugins::converter {

/// Ports or reports nvcuda::wmma in `text`; lines keep their numbers. Stats: idioms_ported, idioms_left.
idiom_port port_wmma(std::string_view path, std::string_view text);

}  // namespace r2r::plugins::converter
