// SPDX-License-Identifier: MIT
// Test corpus: cuFFT (hipFFT after conversion; hipFFT is not packaged for Debian 12, so the build
// check defers this unit to the ROCm container).
#include <cuda_runtime.h>
#include <cufft.h>

int forward(cufftComplex* data, int n, int batch) {
  cufftHandle plan;
  if (cufftPlan1d(&plan, n, CUFFT_C2C, batch) != CUFFT_SUCCESS) return 1;
  const cufftResult r = cufftExecC2C(plan, data, data, CUFFT_FORWARD);
  cufftDestroy(plan);
  cudaDeviceSynchronize();
  return r == CUFFT_SUCCESS ? 0 : 1;
}
