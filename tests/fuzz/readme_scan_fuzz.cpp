// SPDX-License-Identifier: MIT
// Fuzzes the planner's README reading: fenced command blocks, entry points and metric claims.
#include "fingerprint_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  r2r::planning::fingerprint fp;
  auto s = r2r::fuzz::scan_state_for(fp);
  r2r::planning::detail::scan_readme(s, "README.md", r2r::fuzz::as_text(data, size));
  return 0;
}
