// SPDX-License-Identifier: MIT
// Fuzzes the device-code hazard scanner: any text is scanned without throwing, and every hazard
// points at a line of the text.
#include "fuzz_support.hpp"

#include "hazard_scanner.hpp"

#include <algorithm>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = r2r::fuzz::as_text(data, size);
  const auto scan = r2r::plugins::converter::scan_hazards("fuzz.cu", text);
  const auto lines = static_cast<std::int64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  for (const auto& h : scan.hazards)
    if (h.line < 1 || h.line > lines) std::abort();
  return 0;
}
