// SPDX-License-Identifier: MIT
// Fuzzes rocm-smi outputs (--showpids, --showproductname in text, JSON and CSV, the concise table). The contract
// (verify/text.hpp): input a parser cannot read throws plugins::verifier::parse_error; nothing else escapes.
#include "fuzz_support.hpp"

#include <utility>

#include <r2r/verify/rocm_smi.hpp>
#include <r2r/verify/text.hpp>

namespace {

/// The evidence parsers' contract: parse_error is the only exception they may throw.
template <typename F>
void parse(F&& f) {
  r2r::fuzz::allow_only<r2r::plugins::verifier::parse_error>(std::forward<F>(f));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = r2r::fuzz::as_text(data, size);
  parse([&] { return r2r::plugins::verifier::parse_rocm_smi_showpids(text); });
  parse([&] { return r2r::plugins::verifier::parse_rocm_smi_productname(text); });
  parse([&] { return r2r::plugins::verifier::parse_rocm_smi_concise(text); });
  return 0;
}
