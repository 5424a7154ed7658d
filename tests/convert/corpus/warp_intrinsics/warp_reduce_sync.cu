// SPDX-License-Identifier: MIT
// Test corpus: typical CUDA 9+ warp code. Planted hazards are marked with "HAZARD:" and the rule
// ids the scan must report on that line; the *_sync intrinsics have no HIP 5.x form, so this file
// is reported, not compiled.
#include <cuda_runtime.h>

#define FULL_MASK 0xffffffff  // HAZARD: full-mask-32
#define WARP_SIZE 32          // HAZARD: wave32-constant

__inline__ __device__ float warp_reduce(float v) {
  for (int offset = 16; offset > 0; offset /= 2)       // HAZARD: reduction-from-16
    v += __shfl_down_sync(FULL_MASK, v, offset);       // ported: width-32 shuffle, no hazard left
  return v;
}

__global__ void block_reduce(const float* in, float* out, int n) {
  __shared__ float warp_sums[WARP_SIZE];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;                   // HAZARD: lane-mask-arith
  const int warp = threadIdx.x >> 5;                   // HAZARD: lane-mask-arith
  const int warps = blockDim.x / 32;                   // HAZARD: lane-mask-arith
  float v = warp_reduce(i < n ? in[i] : 0.0f);
  unsigned ballot = __ballot_sync(FULL_MASK, v > 0.0f);  // ported: 32-lane ballot helper
  const int active = __popc(__activemask());           // ported: 32-lane activemask helper
  if (lane == 0) warp_sums[warp] = v + 0.0f * ballot + 0.0f * active;
  __syncwarp();                                        // ported: r2r_syncwarp
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? warp_sums[lane] : 0.0f;
    v = warp_reduce(v);
    if (lane == 0) atomicAdd(out, v);
  }
}
