#include "rmsnorm_kernel.cuh"

#define FULL_MASK 0xffffffff
#define WARP_SIZE 32

namespace {

__inline__ __device__ float warp_reduce_sum(float v) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

// One block per row; each thread strides over the columns, then warp and block reductions.
__global__ void rmsnorm_forward_kernel(const float* __restrict__ x, const float* __restrict__ weight,
                                       float* __restrict__ out, float* __restrict__ inv_rms, int cols, float eps) {
  __shared__ float partial[32];
  const int row = blockIdx.x;
  const float* xr = x + static_cast<long>(row) * cols;
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += xr[c] * xr[c];
  sum = warp_reduce_sum(sum);
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  if (lane == 0) partial[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < (blockDim.x + WARP_SIZE - 1) / WARP_SIZE ? partial[lane] : 0.f;
    sum = warp_reduce_sum(sum);
    if (lane == 0) partial[0] = rsqrtf(sum / cols + eps);
  }
  __syncthreads();
  const float scale = partial[0];
  if (threadIdx.x == 0) inv_rms[row] = scale;
  float* orow = out + static_cast<long>(row) * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) orow[c] = xr[c] * scale * weight[c];
}

}  // namespace

cudaError_t rmsnorm_forward(const float* x, const float* weight, float* out, float* inv_rms, int rows, int cols,
                            float eps, cudaStream_t stream) {
  const int threads = cols >= 1024 ? 1024 : ((cols + WARP_SIZE - 1) / WARP_SIZE) * WARP_SIZE;
  rmsnorm_forward_kernel<<<rows, threads, 0, stream>>>(x, weight, out, inv_rms, cols, eps);
  return cudaGetLastError();
}
