// SPDX-License-Identifier: MIT
// Fuzzes conda environment.yml reading (yaml-cpp, conda and pip dependency lists).
#include "fingerprint_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  r2r::planning::fingerprint fp;
  auto s = r2r::fuzz::scan_state_for(fp);
  r2r::planning::detail::scan_conda_env(s, "environment.yml", r2r::fuzz::as_text(data, size));
  return 0;
}
