// SPDX-License-Identifier: MIT
// Fuzzes pyproject.toml reading (toml++, PEP 621 and Poetry tables) and setup.cfg reading.
#include "fingerprint_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = r2r::fuzz::as_text(data, size);
  r2r::planning::fingerprint fp;
  auto s = r2r::fuzz::scan_state_for(fp);
  r2r::planning::detail::scan_pyproject(s, "pyproject.toml", text);
  r2r::planning::detail::scan_setup_cfg(s, "setup.cfg", text);
  (void)r2r::planning::detail::poetry_to_pep440(text.substr(0, 64));
  return 0;
}
