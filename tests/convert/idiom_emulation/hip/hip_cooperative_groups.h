// SPDX-License-Identifier: MIT
// A host-side emulation of the part of HIP 6.4's cooperative groups the ported test kernels use
// (1-D blocks): thread_block_tile<N> shuffles with width N, as in amd_hip_cooperative_groups.h.
// Like HIP 6.4 without HIP_ENABLE_WARP_SYNC_BUILTINS, tiles have no ballot/any/all members, so a
// port that left a tile vote in place does not compile here.
// THREADING: as hip_runtime.h (one std::thread per device thread).
#pragma once

#include <hip/hip_runtime.h>

namespace cooperative_groups {

class thread_block {
 public:
  unsigned thread_rank() const { return threadIdx.x; }
  unsigned size() const { return blockDim.x; }
};

inline thread_block this_thread_block() {
  return {};
}

template <unsigned N>
class thread_block_tile {
  static_assert(N >= 1 && N <= 64 && (N & (N - 1)) == 0, "a tile is a power of two of at most a wavefront");

 public:
  static constexpr unsigned size() { return N; }
  unsigned thread_rank() const { return threadIdx.x & (N - 1); }
  unsigned meta_group_rank() const { return threadIdx.x / N; }
  template <class T>
  T shfl(T v, int src) const {
    return __shfl(v, src, N);
  }
  template <class T>
  T shfl_down(T v, unsigned delta) const {
    return __shfl_down(v, delta, N);
  }
  template <class T>
  T shfl_up(T v, unsigned delta) const {
    return __shfl_up(v, delta, N);
  }
  template <class T>
  T shfl_xor(T v, unsigned mask) const {
    return __shfl_xor(v, static_cast<int>(mask), N);
  }
};

template <unsigned N, class Parent>
thread_block_tile<N> tiled_partition(const Parent&) {
  return {};
}

}  // namespace cooperative_groups
