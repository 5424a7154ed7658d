// SPDX-License-Identifier: MIT
// Test corpus: cuBLAS (hipBLAS after conversion; hipBLAS is not packaged for Debian 12, so the
// build check defers this unit to the ROCm container).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>

int gemm(int m, int n, int k, const float* a, const float* b, float* c, cudaStream_t stream) {
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetStream(handle, stream);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const cublasStatus_t status =
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, a, m, b, n, &beta, c, m);
  cublasDestroy(handle);
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasSgemm failed with %d\n", static_cast<int>(status));
    return 1;
  }
  return 0;
}
