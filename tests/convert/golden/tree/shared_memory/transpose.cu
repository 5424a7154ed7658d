// SPDX-License-Identifier: MIT
// Test corpus: shared memory (a padded static tile, dynamic shared memory with a raised limit
// below 64 KiB, __syncthreads barriers).
#include <hip/hip_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose(float* out, const float* in, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];  // +1 column avoids bank conflicts
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

__global__ void stencil(const float* in, float* out, int n) {
  extern __shared__ float window[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  window[threadIdx.x + 1] = i < n ? in[i] : 0.0f;
  if (threadIdx.x == 0) window[0] = i > 0 ? in[i - 1] : 0.0f;
  if (threadIdx.x == blockDim.x - 1) window[blockDim.x + 1] = i + 1 < n ? in[i + 1] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = (window[threadIdx.x] + window[threadIdx.x + 1] + window[threadIdx.x + 2]) / 3.0f;
}

int main() {
  const int width = 1024;
  const int height = 512;
  float* in = nullptr;
  float* out = nullptr;
  hipMalloc(&in, width * height * sizeof(float));
  hipMalloc(&out, width * height * sizeof(float));
  const dim3 block(TILE_DIM, BLOCK_ROWS);
  const dim3 grid(width / TILE_DIM, height / TILE_DIM);
  transpose<<<grid, block>>>(out, in, width, height);
  hipFuncSetAttribute(reinterpret_cast<const void*>(stencil), hipFuncAttributeMaxDynamicSharedMemorySize,
                       48 * 1024);
  stencil<<<width * height / 256, 256, (256 + 2) * sizeof(float)>>>(in, out, width * height);
  hipDeviceSynchronize();
  hipFree(in);
  hipFree(out);
  return 0;
}
