// SPDX-License-Identifier: MIT
// Fuzzes the collection script's output bundle (nonce-delimited sections and process samples). The contract
// (verify/text.hpp): input a parser cannot read throws plugins::verifier::parse_error; nothing else escapes.
#include "fuzz_support.hpp"

#include <utility>

#include <r2r/verify/bundle.hpp>
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
  parse([&] { return r2r::plugins::verifier::parse_samples(text); });
  const auto parts = r2r::fuzz::split_once(text, "\n");  // the nonce line, then the output
  parse([&] { return r2r::plugins::verifier::parse_bundle(parts.second, parts.first); });
  return 0;
}
