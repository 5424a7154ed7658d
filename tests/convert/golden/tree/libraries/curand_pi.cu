// SPDX-License-Identifier: MIT
// Test corpus: cuRAND host and device APIs (hipRAND after conversion).
#include <hip/hip_runtime.h>
#include <hiprand/hiprand.h>
#include <hiprand/hiprand_kernel.h>

#include <cstdio>

__global__ void setup(hiprandState* states, unsigned long long seed) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  hiprand_init(seed, id, 0, &states[id]);
}

__global__ void hits(hiprandState* states, int samples, unsigned int* count) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  hiprandState local = states[id];
  unsigned int inside = 0;
  for (int s = 0; s < samples; ++s) {
    const float x = hiprand_uniform(&local);
    const float y = hiprand_uniform(&local);
    inside += x * x + y * y <= 1.0f;
  }
  states[id] = local;
  atomicAdd(count, inside);
}

int main() {
  const int threads = 256 * 64;
  hiprandState* states = nullptr;
  unsigned int* count = nullptr;
  hipMalloc(&states, threads * sizeof(hiprandState));
  hipMalloc(&count, sizeof(unsigned int));
  hipMemset(count, 0, sizeof(unsigned int));
  setup<<<64, 256>>>(states, 1234ULL);
  hits<<<64, 256>>>(states, 1000, count);

  hiprandGenerator_t gen;
  float* uniform = nullptr;
  hipMalloc(&uniform, 1024 * sizeof(float));
  if (hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_DEFAULT) != HIPRAND_STATUS_SUCCESS) return 1;
  hiprandSetPseudoRandomGeneratorSeed(gen, 42ULL);
  hiprandGenerateUniform(gen, uniform, 1024);
  hiprandDestroyGenerator(gen);

  unsigned int host = 0;
  hipMemcpy(&host, count, sizeof(host), hipMemcpyDeviceToHost);
  std::printf("pi ~ %f\n", 4.0 * host / (double(threads) * 1000));
  return 0;
}
