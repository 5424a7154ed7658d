// SPDX-License-Identifier: MIT
// Fuzzes the README command parser of `repo2rocm run` (Mode 0): the input is README.md of a tree.
#include "fuzz_support.hpp"
#include "readme_steps.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto tree = r2r::fuzz::scratch_dir() / "tree";
  r2r::fuzz::write_file(tree / "README.md", r2r::fuzz::as_text(data, size));
  const auto found = r2r::run::extract_readme_commands(tree);
  for (const auto& c : found.commands)
    if (c.line < 1) std::abort();
  return 0;
}
