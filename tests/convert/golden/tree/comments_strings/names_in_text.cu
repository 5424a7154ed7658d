// SPDX-License-Identifier: MIT
// Test corpus: CUDA names inside comments and literals must stay byte for byte.
// cudaMalloc, cudaFree and kernel<<<grid, block>>>(args) are mentioned here and must stay as written.
/* A block comment: cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);
   #include <cuda_runtime.h> and __shfl_down_sync(0xffffffff, v, 1) stay too. */
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>

static const char* kHelp = "call cudaMalloc before cudaMemcpy; see <cuda_runtime.h>";
static const char* kRaw = R"doc(
  cudaStream_t s; cudaStreamCreate(&s);   // inside a raw string, "quotes" included
)doc";
static const char kQuote = '"';
static const char kApostrophe = '\'';
static const wchar_t* kWide = L"cudaDeviceSynchronize";
static const char* kUtf8 = u8"cudaGetLastError \u00e9";
#define MESSAGE "cudaErrorMemoryAllocation is reported as text"

#if 0
This block isn't compiled; it's notes with apostrophes.
#endif

__global__ void touch(int* p) {
  p[threadIdx.x] = 1;  // threadIdx in a comment: cudaThreadSynchronize()
}

int main() {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s", "cudaGetLastError");  // the string stays
  const int count = 1'000'000;  // digit separators are not character literals: cudaMalloc
  int* p = nullptr;
  hipMalloc(&p, 64 * sizeof(int));  // only the code is renamed
  touch<<<1, 64>>>(p);
  hipFree(p);
  std::printf("%s %s %c %c %zu %d %ls %s %s\n", kHelp, kRaw, kQuote, kApostrophe, std::strlen(buffer), count, kWide,
              kUtf8, MESSAGE);
  return 0;
}
