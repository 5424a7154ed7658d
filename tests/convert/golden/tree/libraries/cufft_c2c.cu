// SPDX-License-Identifier: MIT
// Test corpus: cuFFT (hipFFT after conversion; hipFFT is not packaged for Debian 12, so the build
// check defers this unit to the ROCm container).
#include <hip/hip_runtime.h>
#include <hipfft/hipfft.h>

int forward(hipfftComplex* data, int n, int batch) {
  hipfftHandle plan;
  if (hipfftPlan1d(&plan, n, HIPFFT_C2C, batch) != HIPFFT_SUCCESS) return 1;
  const hipfftResult r = hipfftExecC2C(plan, data, data, HIPFFT_FORWARD);
  hipfftDestroy(plan);
  hipDeviceSynchronize();
  return r == HIPFFT_SUCCESS ? 0 : 1;
}
