// SPDX-License-Identifier: MIT
// Test corpus: templates and macros (a project header, macro-wrapped launches and error checks,
// explicit instantiation, a block reduction that uses no warp-size assumption).
#ifndef R2R_CUDA_IDIOMS_H
#define R2R_CUDA_IDIOMS_H  // added by repo2rocm port: CUDA warp idioms with 32-lane semantics
#include <hip/hip_runtime.h>
#include <type_traits>
// The 32 ballot bits of this lane's 32-lane half of the wavefront: CUDA's warp on wave64 and wave32.
__device__ static inline unsigned r2r_ballot32(int p) {
  return static_cast<unsigned>(static_cast<unsigned long long>(__ballot(p)) >> (__lane_id() & 32u));
}
__device__ static inline unsigned r2r_activemask32() { return r2r_ballot32(1); }
__device__ static inline int r2r_any32(int p) { return r2r_ballot32(p) != 0u; }
__device__ static inline int r2r_all32(int p) { return r2r_ballot32(p) == r2r_activemask32(); }
__device__ static inline void r2r_syncwarp() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
template <class T> __device__ static inline T r2r_load_nt(const T* p) {
  if constexpr (std::is_arithmetic<T>::value) return __builtin_nontemporal_load(p); else return *p;
}
template <class T> __device__ static inline T r2r_load(const T* p) { return *p; }
template <class T, class U> __device__ static inline void r2r_store_nt(T* p, U v) {
  if constexpr (std::is_arithmetic<T>::value) __builtin_nontemporal_store(static_cast<T>(v), p); else *p = v;
}
template <class T, class U> __device__ static inline void r2r_store(T* p, U v) { *p = v; }
#endif  // R2R_CUDA_IDIOMS_H
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
hipError_t sum(const T* in, T* out, int n, hipStream_t stream) {
  CUDA_TRY(hipMemsetAsync(out, 0, sizeof(T), stream));
  block_sum<T, 256><<<ceil_div(n, 256), 256, 0, stream>>>(in, out, n);
  return hipPeekAtLastError();
}

template hipError_t sum<float>(const float*, float*, int, hipStream_t);

hipError_t run(int n) {
  device_buffer<float> in;
  device_buffer<float> out;
  CUDA_TRY(in.allocate(n));
  CUDA_TRY(out.allocate(1));
  hipStream_t stream = nullptr;
  CUDA_TRY(hipStreamCreate(&stream));
  LAUNCH_1D(scale_kernel, n, stream, in.ptr, 2.0f, n);
  CUDA_TRY(sum(in.ptr, out.ptr, n, stream));
  CUDA_TRY(hipStreamSynchronize(stream));
  return hipStreamDestroy(stream);
}

int main() {
  return run(1 << 16) == hipSuccess ? 0 : 1;
}
