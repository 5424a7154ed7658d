// SPDX-License-Identifier: MIT
// Runs the HIP port of tests/convert/idioms/cg_idioms.cuh (generated at build time by port_file)
// on the wavefront emulator and prints the outputs in the format of the CUDA run, so the test can
// diff them against the H200 reference.
#include "cg_idioms.hip.h"
#include "idiom_inputs.hpp"

int main() {
  using namespace idioms;
  const std::vector<float> xf = float_input();
  const std::vector<int> xi = int_input();
  std::vector<float> of(4 * kN);
  std::vector<int> oi(4 * kN);
  std::vector<unsigned> ou(5 * kN);
  emu::launch(kBlocks, kThreads, [&] { cg_reduce(xf.data(), xi.data(), of.data(), oi.data()); });
  print("cg_reduce_f", std::vector<float>(of.begin(), of.begin() + 2 * kN));
  print("cg_reduce_i", oi);
  emu::launch(kBlocks, kThreads, [&] { cg_shuffles(xf.data(), of.data()); });
  print("cg_shuffles", of);
  emu::launch(kBlocks, kThreads, [&] { cg_votes(xi.data(), ou.data()); });
  print("cg_votes", ou);
  return 0;
}
