// SPDX-License-Identifier: MIT
// Test corpus: NVIDIA-only device features. Every planted hazard is marked with "HAZARD:" and the
// rule ids the scan must report on that line. This file is reported, not compiled.
#include <hip/hip_cooperative_groups.h>
#include <cuda_pipeline.h>  // HAZARD: cp-async
#include <hip/hip_runtime.h>
#include <mma.h>  // HAZARD: wmma

namespace cg = cooperative_groups;
using namespace nvcuda;  // HAZARD: wmma

texture<float, 1, hipReadModeElementType> lookup_tex;  // HAZARD: texture-reference

__device__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));  // HAZARD: inline-ptx
  return lane;
}

__device__ void mma_tile(const unsigned* a, const unsigned* b, float* c) {
  asm volatile(  // HAZARD: mma-ptx
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__global__ void __launch_bounds__(256, 2) tensor_core(const half* a, const half* b, float* c) {  // HAZARD: launch-bounds
  // m32n8k16 has no rocWMMA block on gfx9, so the wmma port leaves this file (16x16x16 would be ported).
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> fa;  // HAZARD: wmma
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major> fb;  // HAZARD: wmma
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> fc;               // HAZARD: wmma
  wmma::fill_fragment(fc, 0.0f);                                         // HAZARD: wmma
  wmma::load_matrix_sync(fa, a, 16);                                     // HAZARD: wmma
  wmma::load_matrix_sync(fb, b, 16);                                     // HAZARD: wmma
  wmma::mma_sync(fc, fa, fb, fc);                                        // HAZARD: wmma
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);               // HAZARD: wmma
}

__global__ void async_copy(const float* global, float* out) {
  __shared__ float stage[256];
  __pipeline_memcpy_async(&stage[threadIdx.x], &global[threadIdx.x], sizeof(float));  // HAZARD: cp-async
  __pipeline_commit();                                                                 // HAZARD: cp-async
  __pipeline_wait_prior(0);                                                            // HAZARD: cp-async
  unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(&stage[threadIdx.x]));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem), "l"(global));  // HAZARD: cp-async
  __syncthreads();
  out[threadIdx.x] = stage[threadIdx.x] + tex1Dfetch(lookup_tex, threadIdx.x);  // HAZARD: texture-reference
}

__global__ void arch_specific(float* x) {
#if __CUDA_ARCH__ >= 800  // HAZARD: cuda-arch-check
  x[threadIdx.x] = __fmaf_rn(x[threadIdx.x], 2.0f, 1.0f);
#else
  x[threadIdx.x] *= 2.0f;
#endif
#ifdef __HIP_DEVICE_COMPILE__  // ported: __HIP_DEVICE_COMPILE__, no hazard left
  x[0] += 1.0f;
#endif
}

__global__ void big_tiles(float* out) {
  __shared__ float a[128][128];  // HAZARD: shared-memory-64k
  __shared__ float b[64];
  a[threadIdx.y][threadIdx.x] = out[threadIdx.x];
  b[threadIdx.x % 64] = a[threadIdx.x][threadIdx.y];
  __syncthreads();
  out[threadIdx.x] = b[threadIdx.x % 64];
}

__global__ void tiles(float* out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile32 = cg::tiled_partition<32>(block);    // HAZARD: cg-tile-32
  auto tile128 = cg::tiled_partition<128>(block);  // HAZARD: cg-tile
  auto active = cg::coalesced_threads();           // HAZARD: coalesced-threads
  out[block.thread_rank()] = tile32.thread_rank() + tile128.thread_rank() + active.size();
}

__global__ void __cluster_dims__(2, 1, 1) clustered(float* out) {  // HAZARD: tma
  out[threadIdx.x] = 0.0f;
}

void configure(CUtensorMap* map) {  // HAZARD: tma
  hipDeviceProp_t prop;
  hipGetDeviceProperties(&prop, 0);
  const size_t optin = prop.sharedMemPerBlockOptin;       // HAZARD: device-prop-field
  const int persisting = prop.persistingL2CacheMaxSize;   // HAZARD: device-prop-field
  hipFuncSetAttribute(reinterpret_cast<const void*>(big_tiles), hipFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);  // HAZARD: shared-memory-64k
  float* buffer = nullptr;
  hipMalloc(&buffer, 1024);
  hipBindTexture(nullptr, lookup_tex, buffer, 1024);  // HAZARD: texture-reference
  (void)map;
  (void)optin;
  (void)persisting;
}
