// SPDX-License-Identifier: MIT
// Fuzzes the unified-diff reader of the guards (an apply_patch action's patch, as the scale-down
// guard reads it before the sandbox applies it).
#include "fuzz_support.hpp"

#include <r2r/guards/text_change.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string patch(r2r::fuzz::as_text(data, size));
  for (const auto& change : r2r::plugins::guard::parse_unified_diff(patch)) (void)change.path.size();
  return 0;
}
