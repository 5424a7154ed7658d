// SPDX-License-Identifier: MIT
// Test corpus: cuRAND host and device APIs (hipRAND after conversion).
#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#include <cstdio>

__global__ void setup(curandState* states, unsigned long long seed) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, id, 0, &states[id]);
}

__global__ void hits(curandState* states, int samples, unsigned int* count) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState local = states[id];
  unsigned int inside = 0;
  for (int s = 0; s < samples; ++s) {
    const float x = curand_uniform(&local);
    const float y = curand_uniform(&local);
    inside += x * x + y * y <= 1.0f;
  }
  states[id] = local;
  atomicAdd(count, inside);
}

int main() {
  const int threads = 256 * 64;
  curandState* states = nullptr;
  unsigned int* count = nullptr;
  cudaMalloc(&states, threads * sizeof(curandState));
  cudaMalloc(&count, sizeof(unsigned int));
  cudaMemset(count, 0, sizeof(unsigned int));
  setup<<<64, 256>>>(states, 1234ULL);
  hits<<<64, 256>>>(states, 1000, count);

  curandGenerator_t gen;
  float* uniform = nullptr;
  cudaMalloc(&uniform, 1024 * sizeof(float));
  if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT) != CURAND_STATUS_SUCCESS) return 1;
  curandSetPseudoRandomGeneratorSeed(gen, 42ULL);
  curandGenerateUniform(gen, uniform, 1024);
  curandDestroyGenerator(gen);

  unsigned int host = 0;
  cudaMemcpy(&host, count, sizeof(host), cudaMemcpyDeviceToHost);
  std::printf("pi ~ %f\n", 4.0 * host / (double(threads) * 1000));
  return 0;
}
