// SPDX-License-Identifier: MIT
// Fuzzes requirements.txt reading: the file as the scanner reads it (options, -r/-c includes,
// continuations) and each line as one PEP 508 requirement.
#include "fingerprint_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = r2r::fuzz::as_text(data, size);
  r2r::fuzz::write_file(r2r::fuzz::scratch_dir() / "requirements.txt", text);
  r2r::planning::fingerprint fp;
  auto s = r2r::fuzz::scan_state_for(fp);
  r2r::planning::detail::scan_requirements_file(s, "requirements.txt", "requirements");
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto [line, after] = r2r::fuzz::split_once(rest, "\n");
    std::string error;
    (void)r2r::planning::detail::parse_requirement(line, error);
    rest = after;
  }
  return 0;
}
