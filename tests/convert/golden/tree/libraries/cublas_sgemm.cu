// SPDX-License-Identifier: MIT
// Test corpus: cuBLAS (hipBLAS after conversion; hipBLAS is not packaged for Debian 12, so the
// build check defers this unit to the ROCm container).
#include <hipblas/hipblas.h>
#include <hip/hip_runtime.h>

#include <cstdio>

int gemm(int m, int n, int k, const float* a, const float* b, float* c, hipStream_t stream) {
  hipblasHandle_t handle;
  if (hipblasCreate(&handle) != HIPBLAS_STATUS_SUCCESS) return 1;
  hipblasSetStream(handle, stream);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const hipblasStatus_t status =
      hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_T, m, n, k, &alpha, a, m, b, n, &beta, c, m);
  hipblasDestroy(handle);
  if (status != HIPBLAS_STATUS_SUCCESS) {
    std::printf("cublasSgemm failed with %d\n", static_cast<int>(status));
    return 1;
  }
  return 0;
}
