// SPDX-License-Identifier: MIT
// Test corpus: the CUDA runtime API (allocation, copies, streams, events, errors, properties).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                                                \
  do {                                                                                                  \
    hipError_t err_ = (call);                                                                          \
    if (err_ != hipSuccess) {                                                                          \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", hipGetErrorString(err_), __FILE__, __LINE__); \
      std::exit(1);                                                                                     \
    }                                                                                                   \
  } while (0)

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 20;
  const size_t bytes = n * sizeof(float);
  std::vector<float> ha(n, 1.0f), hb(n, 2.0f), hc(n);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  CHECK_CUDA(hipMalloc(&da, bytes));
  CHECK_CUDA(hipMalloc(&db, bytes));
  CHECK_CUDA(hipMalloc(&dc, bytes));
  hipStream_t stream;
  CHECK_CUDA(hipStreamCreate(&stream));
  hipEvent_t start, stop;
  CHECK_CUDA(hipEventCreate(&start));
  CHECK_CUDA(hipEventCreate(&stop));
  CHECK_CUDA(hipMemcpyAsync(da, ha.data(), bytes, hipMemcpyHostToDevice, stream));
  CHECK_CUDA(hipMemcpyAsync(db, hb.data(), bytes, hipMemcpyHostToDevice, stream));
  CHECK_CUDA(hipEventRecord(start, stream));
  const dim3 block(256);
  const dim3 grid((n + block.x - 1) / block.x);
  vector_add<<<grid, block, 0, stream>>>(da, db, dc, n);
  CHECK_CUDA(hipGetLastError());
  CHECK_CUDA(hipEventRecord(stop, stream));
  CHECK_CUDA(hipMemcpyAsync(hc.data(), dc, bytes, hipMemcpyDeviceToHost, stream));
  CHECK_CUDA(hipStreamSynchronize(stream));
  float ms = 0.0f;
  CHECK_CUDA(hipEventElapsedTime(&ms, start, stop));

  int device = 0;
  int sms = 0;
  hipDeviceProp_t prop;
  CHECK_CUDA(hipGetDevice(&device));
  CHECK_CUDA(hipGetDeviceProperties(&prop, device));
  CHECK_CUDA(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device));
  std::printf("%s: %d compute units, wavefront %d, %.3f ms, c[0] = %f\n", prop.name, sms, prop.warpSize, ms, hc[0]);

  float* pinned = nullptr;
  CHECK_CUDA(hipHostMalloc(&pinned, bytes));
  CHECK_CUDA(hipMemset(dc, 0, bytes));
  CHECK_CUDA(hipMemcpy(pinned, dc, bytes, hipMemcpyDeviceToHost));
  CHECK_CUDA(hipHostFree(pinned));

  CHECK_CUDA(hipEventDestroy(start));
  CHECK_CUDA(hipEventDestroy(stop));
  CHECK_CUDA(hipStreamDestroy(stream));
  CHECK_CUDA(hipFree(da));
  CHECK_CUDA(hipFree(db));
  CHECK_CUDA(hipFree(dc));
  return 0;
}
