#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <ATen/cuda/CUDAEvent.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
__global__ void k(float* x) { x[threadIdx.x] = 1.f; }
void f(torch::Tensor t) {
  const at::cuda::OptionalCUDAGuard guard(device_of(t));
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  c10::cuda::CUDAStream s2 = c10::cuda::getCurrentCUDAStream();
  cublasHandle_t h = at::cuda::getCurrentCUDABlasHandle();
  cublasSetStream(h, stream);
  k<<<1, 32, 0, stream>>>(t.data_ptr<float>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  AT_CUDA_CHECK(cudaGetLastError());
}
