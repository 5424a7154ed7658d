// SPDX-License-Identifier: MIT
// Deterministic ports of the cooperative-groups idioms HIP lacks or spells differently, run after
// port_cuda_idioms and before the rename pass of convert_source. HIP's thread_block_tile<N> keeps
// CUDA's N-lane semantics for shfl/shfl_up/shfl_down/shfl_xor (width N), so those are kept; what
// differs is ported or reported:
//
//   V.ballot(p) / V.any(p) / V.all(p), V a thread_block_tile<N> with a literal N (declared as such,
//   or from tiled_partition<N>(...)) -> r2r_tile_ballot<N>(V, p) / r2r_tile_any<N> / r2r_tile_all<N>:
//                                       the tile's N bits, as in CUDA (HIP 6.x only declares these
//                                       members under HIP_ENABLE_WARP_SYNC_BUILTINS, and returns 64 bits)
//   cg::reduce(V, x, op), V such a tile -> r2r_cg_reduce(V, x, op): a shfl_xor butterfly over the
//                                       tile, every lane gets the result (HIP has no reduce.h)
//   cg::plus/less/greater/bit_and/bit_or/bit_xor<T> -> r2r_cg_plus<T>, ... (same operations)
//   <cooperative_groups/reduce.h>    -> <hip/hip_cooperative_groups.h>
//   tiled_partition<M>(V), V such a tile -> tiled_partition<M>(cooperative_groups::this_thread_block()):
//                                       HIP 6.4 partitions only a thread_block statically; the lanes are
//                                       the same, meta_group_rank() becomes block-relative (a warning says so)
// Left and reported (manual_port): votes and reduce on a group whose tile size is not a literal
// (coalesced groups, template parameters), match_any/match_all, reduce_update_async/
// reduce_store_async, inclusive_scan/exclusive_scan and <cooperative_groups/scan.h>.
// `cg` stands for cooperative_groups or any alias of it (namespace cg = cooperative_groups;);
// unqualified names count after `using namespace cooperative_groups;`.
// A file that uses a helper gets cg_helpers_block() (guard R2R_CG_IDIOMS_H) through insert_block.
// THREADING: pure functions of their input.
#pragma once

#include <r2r/convert/cuda_idioms.hpp>

#include <string_view>

namespace r2r::plugins::converter {

/// Ports the idioms above in `text`; lines keep their numbers. Text the lexer cannot read is
/// returned unchanged. Stats: idioms_ported, idioms_left.
idiom_port port_cooperative_groups(std::string_view path, std::string_view text);

/// The helper block this port needs; starts with `#ifndef R2R_CG_IDIOMS_H`.
std::string_view cg_helpers_block();

}  // namespace r2r::plugins::converter
