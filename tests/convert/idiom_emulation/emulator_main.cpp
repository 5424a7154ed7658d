// SPDX-License-Identifier: MIT
// Runs the HIP port of tests/convert/idioms/warp_idioms.cuh (generated at build time by
// port_file) on the wavefront emulator (hip/hip_runtime.h) and prints the outputs in the format
// of the CUDA run, so the test can diff them against the H200 reference.
#include "idiom_inputs.hpp"
#include "warp_idioms.hip.h"

int main() {
  using namespace idioms;
  const std::vector<float> xf = float_input();
  const std::vector<int> xi = int_input();
  std::vector<float> of(2 * kN);
  std::vector<int> oi(3 * kN);
  std::vector<unsigned> ou(4 * kN);
  emu::launch(kBlocks, kThreads, [&] { warp_reduce(xf.data(), of.data()); });
  print("warp_reduce", std::vector<float>(of.begin(), of.begin() + kN));
  emu::launch(kBlocks, kThreads, [&] { warp_butterfly(xf.data(), of.data()); });
  print("warp_butterfly", std::vector<float>(of.begin(), of.begin() + kN));
  emu::launch(kBlocks, kThreads, [&] { warp_scan(xi.data(), oi.data()); });
  print("warp_scan", oi);
  emu::launch(kBlocks, kThreads, [&] { warp_vote(xi.data(), ou.data()); });
  print("warp_vote", ou);
  emu::launch(kBlocks, kThreads, [&] { cache_hints(xf.data(), of.data()); });
  print("cache_hints", of);
  emu::launch(kBlocks, kThreads, [&] { bf16_round(xf.data(), of.data()); });
  print("bf16_round", std::vector<float>(of.begin(), of.begin() + kN));
  emu::launch(kBlocks, kThreads, [&] { device_pass(oi.data()); });
  print("device_pass", std::vector<int>(oi.begin(), oi.begin() + kN));
  return 0;
}
