// SPDX-License-Identifier: MIT
// Test corpus: typical CUDA 9+ warp code. Planted hazards are marked with "HAZARD:" and the rule
// ids the scan must report on that line; the *_sync intrinsics have no HIP 5.x form, so this file
// is reported, not compiled.
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
#include <hip/hip_runtime.h>

#define FULL_MASK 0xffffffff  // HAZARD: full-mask-32
#define WARP_SIZE 32          // HAZARD: wave32-constant

__inline__ __device__ float warp_reduce(float v) {
  for (int offset = 16; offset > 0; offset /= 2)       // HAZARD: reduction-from-16
    v += __shfl_down(v, offset, 32);       // ported: width-32 shuffle, no hazard left
  return v;
}

__global__ void block_reduce(const float* in, float* out, int n) {
  __shared__ float warp_sums[WARP_SIZE];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;                   // HAZARD: lane-mask-arith
  const int warp = threadIdx.x >> 5;                   // HAZARD: lane-mask-arith
  const int warps = blockDim.x / 32;                   // HAZARD: lane-mask-arith
  float v = warp_reduce(i < n ? in[i] : 0.0f);
  unsigned ballot = r2r_ballot32(v > 0.0f);  // ported: 32-lane ballot helper
  const int active = __popc(r2r_activemask32());           // ported: 32-lane activemask helper
  if (lane == 0) warp_sums[warp] = v + 0.0f * ballot + 0.0f * active;
  r2r_syncwarp();                                        // ported: r2r_syncwarp
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? warp_sums[lane] : 0.0f;
    v = warp_reduce(v);
    if (lane == 0) atomicAdd(out, v);
  }
}
