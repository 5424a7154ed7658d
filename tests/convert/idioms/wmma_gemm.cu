// SPDX-License-Identifier: MIT
// CUDA written for the tests: the nvcuda::wmma shapes the wmma port maps to rocWMMA (m16n16k16, half
// inputs, float and half accumulators), in the cuda-samples spelling (`using namespace nvcuda`,
// shapes as macros and constants). One warp computes one 16x16 tile of C = A * B; the tile index
// comes from warpSize. The build-check test compiles the port for gfx90a, gfx942 and gfx950.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define TILE_M 16
#define TILE_N 16
constexpr int TILE_K = 16;

// a: M x K row-major, b: K x N column-major, c: M x N row-major; M, N, K multiples of 16.
__global__ void wmma_gemm_f32(const half* a, const half* b, float* c, int m, int n, int k) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  const int tiles_n = n / TILE_N;
  const int tm = warp / tiles_n;
  const int tn = warp % tiles_n;
  if (tm * TILE_M >= m) return;
  wmma::fragment<wmma::matrix_a, TILE_M, TILE_N, TILE_K, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, TILE_M, TILE_N, TILE_K, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, TILE_M, TILE_N, TILE_K, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += TILE_K) {
    wmma::load_matrix_sync(fa, a + tm * TILE_M * k + kk, k);
    wmma::load_matrix_sync(fb, b + tn * TILE_N * k + kk, k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= 0.5f;
  wmma::store_matrix_sync(c + tm * TILE_M * n + tn * TILE_N, acc, n, wmma::mem_row_major);
}

// The same tile with a half accumulator, stored column-major.
__global__ void wmma_gemm_f16(const half* a, const half* b, half* c, int m, int n, int k) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  const int tiles_n = n / TILE_N;
  const int tm = warp / tiles_n;
  const int tn = warp % tiles_n;
  if (tm * TILE_M >= m) return;
  wmma::fragment<wmma::matrix_a, TILE_M, TILE_N, TILE_K, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, TILE_M, TILE_N, TILE_K, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, TILE_M, TILE_N, TILE_K, half> acc;
  wmma::fill_fragment(acc, __float2half(0.0f));
  for (int kk = 0; kk < k; kk += TILE_K) {
    wmma::load_matrix_sync(fa, a + tm * TILE_M * k + kk, k);
    wmma::load_matrix_sync(fb, b + tn * TILE_N * k + kk, k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + tn * TILE_N * m + tm * TILE_M, acc, m, wmma::mem_col_major);
}

// Host launcher: one warp per output tile.
cudaError_t launch_wmma_gemm_f32(const half* a, const half* b, float* c, int m, int n, int k, cudaStream_t s) {
  int warp_size = 32;
  cudaDeviceGetAttribute(&warp_size, cudaDevAttrWarpSize, 0);
  const int warps = (m / TILE_M) * (n / TILE_N);
  const int per_block = 4;
  wmma_gemm_f32<<<(warps + per_block - 1) / per_block, per_block * warp_size, 0, s>>>(a, b, c, m, n, k);
  return cudaGetLastError();
}
