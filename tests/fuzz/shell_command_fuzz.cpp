// SPDX-License-Identifier: MIT
// Fuzzes the shell command analysis the guards rely on: any text is analysed without throwing, and
// every command it reports stays within the depth limit.
#include "fuzz_support.hpp"

#include <r2r/support/shell.hpp>

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int max_depth = 8;
  for (const auto& c : r2r::shell::analyze(r2r::fuzz::as_text(data, size), max_depth)) {
    if (c.depth < 0 || c.depth > max_depth) std::abort();
    if (!c.argv.empty()) (void)r2r::shell::program_name(c.argv.front());
  }
  return 0;
}
