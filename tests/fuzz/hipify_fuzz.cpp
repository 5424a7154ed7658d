// SPDX-License-Identifier: MIT
// Fuzzes the token-aware hipify rewrite of a source file and of a build file. The contract checked:
// a failed conversion leaves the text unchanged, and converting the output again changes nothing
// (idempotence, hipify.hpp).
#include "fuzz_support.hpp"

#include <r2r/convert/hipify.hpp>

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = r2r::fuzz::as_text(data, size);
  const r2r::plugins::converter::hipify_options options;
  const auto once = r2r::plugins::converter::convert_source("fuzz.cu", text, options);
  if (once.failed && once.text != text) std::abort();
  if (!once.failed) {
    const auto twice = r2r::plugins::converter::convert_source("fuzz.cu", once.text, options);
    if (twice.text != once.text) std::abort();
  }
  (void)r2r::plugins::converter::convert_build_file("CMakeLists.txt", text);
  std::set<std::string, std::less<>> names;
  r2r::plugins::converter::collect_defined_names(text, names);
  return 0;
}
