// SPDX-License-Identifier: MIT
// Fuzzes the CUDA/C++ lexer: tokens stay inside the text, never go backwards, and lexing ends.
#include "fuzz_support.hpp"

#include <r2r/convert/lexer.hpp>

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = r2r::fuzz::as_text(data, size);
  r2r::plugins::converter::lexer lex(text);
  std::size_t last_begin = 0;
  for (std::size_t n = 0;; ++n) {
    const auto t = lex.next();
    if (t.begin > t.end || t.end > text.size() || t.begin < last_begin) std::abort();
    (void)lex.text_of(t);
    if (t.kind == r2r::plugins::converter::token_kind::end_of_file ||
        t.kind == r2r::plugins::converter::token_kind::error)
      break;
    if (n > 2 * text.size() + 2) std::abort();  // more tokens than the text can hold: no progress
    last_begin = t.begin;
  }
  return 0;
}
