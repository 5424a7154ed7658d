// SPDX-License-Identifier: MIT
// Test corpus: a project header with macros around CUDA calls, __CUDACC__ and clang-CUDA guards and
// templates.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>

#ifdef __HIPCC__
#define HOST_DEVICE __host__ __device__
#else
#define HOST_DEVICE
#endif

// An unroll hint for device code: clang's CUDA mode (__CUDA__) needs _Pragma, nvcc takes the
// directive itself (the tiny-cuda-nn idiom). Ported, __CUDA__ is HIP-Clang's __HIP__.
#if defined(__HIP_DEVICE_COMPILE__)
#if defined(__clang__) && defined(__HIP__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL #pragma unroll
#endif
#else
#define UNROLL
#endif

#define CUDA_TRY(expr)                                                         \
  do {                                                                         \
    const hipError_t status_ = (expr);                                        \
    if (status_ != hipSuccess) {                                              \
      std::printf("%s failed: %s\n", #expr, hipGetErrorName(status_));        \
      return status_;                                                          \
    }                                                                          \
  } while (0)

#define LAUNCH_1D(kernel, n, stream, ...) kernel<<<((n) + 255) / 256, 256, 0, (stream)>>>(__VA_ARGS__)

template <typename T>
struct device_buffer {
  T* ptr = nullptr;
  size_t count = 0;
  hipError_t allocate(size_t n) {
    count = n;
    return hipMalloc(&ptr, n * sizeof(T));
  }
  ~device_buffer() {
    if (ptr != nullptr) hipFree(ptr);
  }
};

HOST_DEVICE inline int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}
