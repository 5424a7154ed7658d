// SPDX-License-Identifier: MIT
// Fuzzes the reading of anthropic replies: a 2xx body through decode() and the same body as an error
// body through classify(). The contract: malformed bodies throw llm_error, nothing else escapes.
#include "fuzz_support.hpp"

#include "anthropic_wire.hpp"
#include "errors.hpp"

using namespace r2r::plugins::llm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const anthropic_wire wire("2023-06-01");
  const auto body = r2r::fuzz::as_text(data, size);
  try {
    const auto decoded = wire.decode(body, "fuzz-model");
    (void)decoded.problem_detail.size();
  } catch (const llm_error&) {
  }
  for (long status : {400L, 429L, 500L, 529L}) (void)wire.classify(status, body);
  return 0;
}
