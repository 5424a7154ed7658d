// SPDX-License-Identifier: MIT
// Runs the idiom kernels with CUDA and prints their outputs (the reference for the HIP port):
//   nvcc -std=c++17 -o warp_idioms warp_idioms_main.cu && ./warp_idioms > warp_idioms.h200.txt
#include "idiom_inputs.hpp"
#include "warp_idioms.cuh"

#include <cstdlib>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

template <class T>
T* device_copy(const std::vector<T>& v) {
  T* d = nullptr;
  CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
std::vector<T> host_copy(const T* d, std::size_t n) {
  std::vector<T> v(n);
  CHECK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

int main() {
  using namespace idioms;
  float* xf = device_copy(float_input());
  int* xi = device_copy(int_input());
  float* of = device_copy(std::vector<float>(2 * kN));
  int* oi = device_copy(std::vector<int>(3 * kN));
  unsigned* ou = device_copy(std::vector<unsigned>(4 * kN));
  warp_reduce<<<kBlocks, kThreads>>>(xf, of);
  print("warp_reduce", host_copy(of, kN));
  warp_butterfly<<<kBlocks, kThreads>>>(xf, of);
  print("warp_butterfly", host_copy(of, kN));
  warp_scan<<<kBlocks, kThreads>>>(xi, oi);
  print("warp_scan", host_copy(oi, 3 * kN));
  warp_vote<<<kBlocks, kThreads>>>(xi, ou);
  print("warp_vote", host_copy(ou, 4 * kN));
  cache_hints<<<kBlocks, kThreads>>>(xf, of);
  print("cache_hints", host_copy(of, 2 * kN));
  bf16_round<<<kBlocks, kThreads>>>(xf, of);
  print("bf16_round", host_copy(of, kN));
  device_pass<<<kBlocks, kThreads>>>(oi);
  print("device_pass", host_copy(oi, kN));
  CHECK(cudaDeviceSynchronize());
  return 0;
}
