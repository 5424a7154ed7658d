// SPDX-License-Identifier: MIT
// Test corpus: templates and macros (a project header, macro-wrapped launches and error checks,
// explicit instantiation, a block reduction that uses no warp-size assumption).
#include "check.cuh"

template <typename T, int kBlock>
__global__ void block_sum(const T* in, T* out, int n) {
  __shared__ T partial[kBlock];
  const int i = blockIdx.x * kBlock + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  UNROLL
  for (int stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

__global__ void scale_kernel(float* x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

template <typename T>
cudaError_t sum(const T* in, T* out, int n, cudaStream_t stream) {
  CUDA_TRY(cudaMemsetAsync(out, 0, sizeof(T), stream));
  block_sum<T, 256><<<ceil_div(n, 256), 256, 0, stream>>>(in, out, n);
  return cudaPeekAtLastError();
}

template cudaError_t sum<float>(const float*, float*, int, cudaStream_t);

cudaError_t run(int n) {
  device_buffer<float> in;
  device_buffer<float> out;
  CUDA_TRY(in.allocate(n));
  CUDA_TRY(out.allocate(1));
  cudaStream_t stream = nullptr;
  CUDA_TRY(cudaStreamCreate(&stream));
  LAUNCH_1D(scale_kernel, n, stream, in.ptr, 2.0f, n);
  CUDA_TRY(sum(in.ptr, out.ptr, n, stream));
  CUDA_TRY(cudaStreamSynchronize(stream));
  return cudaStreamDestroy(stream);
}

int main() {
  return run(1 << 16) == cudaSuccess ? 0 : 1;
}
