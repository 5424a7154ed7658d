// SPDX-License-Identifier: MIT
// Kernels written for the conversion tests: one per CUDA idiom the port rewrites (shuffles with a
// full mask, votes, __activemask, __syncwarp, cache-hint loads and stores, bf16, __CUDA_ARCH__).
// warp_idioms_main.cu runs them with CUDA (the reference outputs in warp_idioms.h200.txt come from
// an NVIDIA H200); the emulation test runs their HIP port on a 64-lane wavefront emulator.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void warp_reduce(const float* x, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
  out[i] = v;  // lane 0 of each 32-lane warp holds the warp's sum
}

__global__ void warp_butterfly(const float* x, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int mask = 1; mask < 32; mask <<= 1) v += __shfl_xor_sync(0xffffffff, v, mask);
  out[i] = v;  // every lane holds its warp's sum
}

__global__ void warp_scan(const int* x, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  int v = x[i];
  for (int offset = 1; offset < 32; offset <<= 1) {
    const int n = __shfl_up_sync(0xffffffff, v, offset);
    if (lane >= offset) v += n;
  }
  const int total = __shfl_sync(0xffffffff, v, 31);
  const int quarter = __shfl_xor_sync(0xffffffff, v, 2, 8);  // an explicit width is kept
  out[3 * i] = v;
  out[3 * i + 1] = total;
  out[3 * i + 2] = quarter;
}

__global__ void warp_vote(const int* x, unsigned* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned odd = __ballot_sync(0xffffffff, x[i] & 1);
  const int any_big = __any_sync(0xffffffff, x[i] > 90);
  const int all_small = __all_sync(0xffffffff, x[i] < 100);
  const unsigned active = __activemask();
  __syncwarp();
  out[4 * i] = odd;
  out[4 * i + 1] = static_cast<unsigned>(any_big);
  out[4 * i + 2] = static_cast<unsigned>(all_small);
  out[4 * i + 3] = active;
}

__global__ void cache_hints(const float* x, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = __ldcs(x + i) + 2.0f * __ldcg(&x[i]);
  __stcs(out + i, v);
  __stwt(out + blockDim.x * gridDim.x + i, -v);
}

__global__ void bf16_round(const float* x, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const nv_bfloat16 h = __float2bfloat16(x[i] * 1.00390625f);
  out[i] = __bfloat162float(h);
}

__global__ void device_pass(int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef __CUDA_ARCH__
  out[i] = 1;  // the device compilation pass
#else
  out[i] = 2;
#endif
}
