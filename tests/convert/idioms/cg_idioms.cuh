// SPDX-License-Identifier: MIT
// Kernels written for the conversion tests: cooperative-groups reductions, tile shuffles and tile
// votes (thread_block_tile<32> and smaller tiles). cg_idioms_main.cu runs them with CUDA (the
// reference outputs in cg_idioms.h200.txt come from an NVIDIA H200); the emulation test runs their
// HIP port on a 64-lane wavefront emulator.
#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void cg_reduce(const float* x, const int* xi, float* out, int* outi) {
  const cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[2 * i] = cg::reduce(warp, x[i], cg::plus<float>());
  outi[4 * i] = cg::reduce(warp, xi[i], cg::greater<int>());
  outi[4 * i + 1] = cg::reduce(warp, xi[i], cg::less<int>());
  outi[4 * i + 2] = cg::reduce(warp, xi[i], cg::bit_xor<int>());
  cg::thread_block_tile<8> oct = cg::tiled_partition<8>(warp);
  out[2 * i + 1] = cg::reduce(oct, x[i], cg::plus<float>());
  outi[4 * i + 3] = cg::reduce(oct, xi[i], cg::bit_or<int>());
}

__device__ float tile_sum(const cg::thread_block_tile<32>& tile, float v) {
  for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
  return v;  // rank 0 of the tile holds the sum
}

__global__ void cg_shuffles(const float* x, float* out) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = x[i];
  out[4 * i] = tile_sum(warp, v);
  out[4 * i + 1] = warp.shfl(v, 31);
  out[4 * i + 2] = warp.shfl_xor(v, 16) + static_cast<float>(warp.thread_rank());
  out[4 * i + 3] = warp.shfl_up(v, 1) + static_cast<float>(warp.meta_group_rank());
}

__global__ void cg_votes(const int* x, unsigned* out) {
  const cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[5 * i] = warp.ballot(x[i] & 1);
  out[5 * i + 1] = static_cast<unsigned>(warp.any(x[i] > 90));
  out[5 * i + 2] = static_cast<unsigned>(warp.all(x[i] < 100));
  auto quad = cg::tiled_partition<4>(block);
  out[5 * i + 3] = quad.ballot(x[i] & 1);
  out[5 * i + 4] = static_cast<unsigned>(quad.all(x[i] > 10));
}
