// SPDX-License-Identifier: MIT
// Test corpus: warp intrinsics written without 32-lane assumptions (warpSize-driven shuffles,
// 64-bit ballots); HIP has every one of them.
#include <hip/hip_runtime.h>

__device__ float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  return v;
}

__device__ float warp_max(float v) {
  for (int mask = warpSize / 2; mask > 0; mask /= 2) v = fmaxf(v, __shfl_xor(v, mask));
  return v;
}

__global__ void vote(const float* in, float* sums, int* counts, int* flags, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = i < n ? in[i] : 0.0f;
  const unsigned long long positive = __ballot(v > 0.0f);
  const float total = warp_sum(v);
  const float largest = warp_max(v);
  if (threadIdx.x % warpSize == 0) {
    const int warp = i / warpSize;
    sums[warp] = total + 0.0f * largest;
    counts[warp] = __popcll(positive);
    flags[warp] = (__any(v < 0.0f) ? 1 : 0) | (__all(v >= 0.0f) ? 2 : 0) | (__ffsll(positive) << 2);
  }
}

int main() {
  float* in = nullptr;
  float* sums = nullptr;
  int* counts = nullptr;
  int* flags = nullptr;
  hipMalloc(&in, 1024 * sizeof(float));
  hipMalloc(&sums, 1024 * sizeof(float));
  hipMalloc(&counts, 1024 * sizeof(int));
  hipMalloc(&flags, 1024 * sizeof(int));
  vote<<<4, 256>>>(in, sums, counts, flags, 1024);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
