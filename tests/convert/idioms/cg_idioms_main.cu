// SPDX-License-Identifier: MIT
// Runs the cooperative-groups kernels with CUDA and prints their outputs (the reference for the HIP port):
//   nvcc -std=c++17 -o cg_idioms cg_idioms_main.cu && ./cg_idioms > cg_idioms.h200.txt
#include "cg_idioms.cuh"
#include "idiom_inputs.hpp"

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
  float* of = device_copy(std::vector<float>(4 * kN));
  int* oi = device_copy(std::vector<int>(4 * kN));
  unsigned* ou = device_copy(std::vector<unsigned>(5 * kN));
  cg_reduce<<<kBlocks, kThreads>>>(xf, xi, of, oi);
  print("cg_reduce_f", host_copy(of, 2 * kN));
  print("cg_reduce_i", host_copy(oi, 4 * kN));
  cg_shuffles<<<kBlocks, kThreads>>>(xf, of);
  print("cg_shuffles", host_copy(of, 4 * kN));
  cg_votes<<<kBlocks, kThreads>>>(xi, ou);
  print("cg_votes", host_copy(ou, 5 * kN));
  CHECK(cudaDeviceSynchronize());
  return 0;
}
