// SPDX-License-Identifier: MIT
// Fuzzes the in-process probe's JSON report (sitecustomize.py). The contract (verify/text.hpp): input a parser cannot
// read throws verify::parse_error; nothing else escapes.
#include "fuzz_support.hpp"

#include <r2r/verify/text.hpp>
#include <r2r/verify/torch_output.hpp>

namespace {

template <typename F>
void parse(F&& f) {
  try {
    (void)f();
  } catch (const r2r::verify::parse_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = r2r::fuzz::as_text(data, size);
  parse([&] { return r2r::verify::parse_probe_json(text); });
  return 0;
}
