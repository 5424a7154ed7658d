// SPDX-License-Identifier: MIT
// A host-side emulation of the HIP device functions the idiom ports use, with AMD's wave64
// semantics: each thread of a block is a std::thread, 64 consecutive threads form a wavefront, and
// every cross-lane operation is an exchange through the wavefront's slots between two barriers
// (so kernels must reach each cross-lane call convergently, as the test kernels do).
// Lane index rules follow HIP's amd_warp_functions.h: __shfl reads lane (src + (self & ~(w-1)))
// mod 64, __shfl_up/_down/_xor stay in the width-w segment of the calling lane or read themselves.
// R2R_EMU_IGNORE_WIDTH makes every shuffle use the full wavefront (width 64): the port that
// forgets CUDA's 32-lane width, which the test shows gives different numbers.
// THREADING: emu::launch runs one block at a time; the per-lane state is thread_local.
#pragma once

#include <barrier>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __HIP_DEVICE_COMPILE__ 1
#define __builtin_amdgcn_fence(order, scope) ((void)0)
#define __builtin_amdgcn_wave_barrier() emu::wave_barrier()
#define __builtin_nontemporal_load(p) (*(p))
#define __builtin_nontemporal_store(v, p) (*(p) = (v))

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;

namespace emu {

constexpr int kWave = 64;

struct wavefront {
  std::barrier<> sync{kWave};
  alignas(16) unsigned char slot[kWave][16];
};

inline thread_local wavefront* wave = nullptr;
inline thread_local int lane = 0;

inline void wave_barrier() {
  wave->sync.arrive_and_wait();
}

template <class T>
T exchange(T v, int src) {
  static_assert(sizeof(T) <= 16);
  std::memcpy(wave->slot[lane], &v, sizeof(T));
  wave->sync.arrive_and_wait();
  T r;
  std::memcpy(&r, wave->slot[src & (kWave - 1)], sizeof(T));
  wave->sync.arrive_and_wait();
  return r;
}

inline int width_of(int w) {
#ifdef R2R_EMU_IGNORE_WIDTH
  (void)w;
  return kWave;
#else
  return w;
#endif
}

/// Runs `kernel` for grid x block threads (1-D), block by block; block must be a multiple of 64.
inline void launch(unsigned grid, unsigned block, const std::function<void()>& kernel) {
  gridDim.x = grid;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b) {
    std::vector<std::unique_ptr<wavefront>> waves;
    for (unsigned w = 0; w < block / kWave; ++w) waves.push_back(std::make_unique<wavefront>());
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < block; ++t) {
      threads.emplace_back([&, t] {
        threadIdx.x = t;
        blockIdx.x = b;
        wave = waves[t / kWave].get();
        lane = static_cast<int>(t % kWave);
        kernel();
      });
    }
    for (auto& t : threads) t.join();
  }
}

}  // namespace emu

inline unsigned __lane_id() {
  return static_cast<unsigned>(emu::lane);
}

inline unsigned long long __ballot(int predicate) {
  const int p = predicate != 0;
  std::memcpy(emu::wave->slot[emu::lane], &p, sizeof p);
  emu::wave->sync.arrive_and_wait();
  unsigned long long mask = 0;
  for (int l = 0; l < emu::kWave; ++l) {
    int q = 0;
    std::memcpy(&q, emu::wave->slot[l], sizeof q);
    if (q != 0) mask |= 1ull << l;
  }
  emu::wave->sync.arrive_and_wait();
  return mask;
}

template <class T>
T __shfl(T var, int src_lane, int width = 64) {
  const int w = emu::width_of(width);
  return emu::exchange(var, src_lane + (emu::lane & ~(w - 1)));
}

template <class T>
T __shfl_up(T var, unsigned delta, int width = 64) {
  const int w = emu::width_of(width);
  const int self = emu::lane;
  int index = self - static_cast<int>(delta);
  if (index < (self & ~(w - 1))) index = self;
  return emu::exchange(var, index);
}

template <class T>
T __shfl_down(T var, unsigned delta, int width = 64) {
  const int w = emu::width_of(width);
  const int self = emu::lane;
  int index = self + static_cast<int>(delta);
  if ((self & (w - 1)) + static_cast<int>(delta) >= w) index = self;
  return emu::exchange(var, index);
}

template <class T>
T __shfl_xor(T var, int lane_mask, int width = 64) {
  const int w = emu::width_of(width);
  const int self = emu::lane;
  int index = self ^ lane_mask;
  if (index >= ((self + w) & ~(w - 1))) index = self;
  return emu::exchange(var, index);
}
