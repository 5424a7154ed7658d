// SPDX-License-Identifier: MIT
// Inputs and the output format shared by the CUDA run (warp_idioms_main.cu) and the wavefront
// emulation of its HIP port, so both print byte-comparable text.
#pragma once
#include <cstdio>
#include <vector>

namespace idioms {

constexpr int kBlocks = 2;
constexpr int kThreads = 128;
constexpr int kN = kBlocks * kThreads;

inline std::vector<float> float_input() {
  std::vector<float> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = static_cast<float>((i * 37) % 101 - 20) / 8.0f;  // sums are exact
  return x;
}

inline std::vector<int> int_input() {
  std::vector<int> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = (i * 53) % 97;
  return x;
}

inline void print(const char* name, const std::vector<float>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) std::printf("%s %zu %.9g\n", name, i, v[i]);
}
inline void print(const char* name, const std::vector<int>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) std::printf("%s %zu %d\n", name, i, v[i]);
}
inline void print(const char* name, const std::vector<unsigned>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) std::printf("%s %zu %u\n", name, i, v[i]);
}

}  // namespace idioms
