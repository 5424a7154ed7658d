// SPDX-License-Identifier: MIT
// Test corpus: kernels and launches (templates, default arguments, streams, dynamic shared
// memory, __constant__ memory, cudaLaunchKernel, occupancy).
#include <hip/hip_runtime.h>

#include <cstdio>

__constant__ float kScale[4];

template <typename T>
__device__ __forceinline__ T fma_op(T a, T x, T y) {
  return a * x + y;
}

template <typename T, int kItemsPerThread>
__global__ void saxpy(T a, const T* __restrict__ x, T* __restrict__ y, int n) {
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * kItemsPerThread;
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int i = base + k;
    if (i < n) y[i] = fma_op(a * kScale[k], x[i], y[i]);
  }
}

__global__ void fill(float* p, float v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = v;
}

__global__ void scaled_copy(const float* in, float* out, int n) {
  extern __shared__ float staging[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  staging[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = staging[threadIdx.x] * kScale[0];
}

int main() {
  int n = 4096;
  float* x = nullptr;
  float* y = nullptr;
  hipMalloc(reinterpret_cast<void**>(&x), n * sizeof(float));
  hipMalloc(reinterpret_cast<void**>(&y), n * sizeof(float));
  const float scale[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  hipMemcpyToSymbol(kScale, scale, sizeof(scale));

  fill<<<16, 256>>>(x, 1.0f, n);
  fill<<<dim3(16), dim3(256)>>>(y, 2.0f, n);
  saxpy<float, 4><<<(n / 4 + 127) / 128, 128>>>(2.0f, x, y, n);

  hipStream_t s;
  hipStreamCreateWithFlags(&s, hipStreamNonBlocking);
  scaled_copy<<<n / 256, 256, 256 * sizeof(float), s>>>(x, y, n);

  float value = 3.0f;
  void* args[] = {&x, &value, &n};
  hipLaunchKernel(reinterpret_cast<const void*>(fill), dim3(16), dim3(256), args, 0, s);

  int min_grid = 0;
  int block = 0;
  hipOccupancyMaxPotentialBlockSize(&min_grid, &block, fill, 0, 0);
  std::printf("suggested block size %d (min grid %d)\n", block, min_grid);

  hipStreamSynchronize(s);
  hipStreamDestroy(s);
  hipFree(x);
  hipFree(y);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
