// Launcher of the fused RMSNorm forward kernel; no PyTorch types, so the kernel builds on its own.
#pragma once

#include <cuda_runtime.h>

// out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight[:], for `rows` rows of `cols` floats.
// Writes inv_rms[r] for the backward pass. Returns the launch error.
cudaError_t rmsnorm_forward(const float* x, const float* weight, float* out, float* inv_rms, int rows, int cols,
                            float eps, cudaStream_t stream);
