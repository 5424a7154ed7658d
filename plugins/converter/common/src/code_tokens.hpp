// SPDX-License-Identifier: MIT
// The tokens of one source text as the idiom and rename passes of convert_source read them (every
// token but comments), lexed once and carried from pass to pass: a pass that rewrites spans of
// the text hands on the tokens of its output by splicing (splice_tokens) instead of lexing the
// whole output again.
//
// Contract of splice_tokens: on success, `out` equals lex_code(out_text).tokens field for field
// (kind, begin, end, line, column, in_directive, in_skipped_block); tests pin this on crafted
// edits and on the bench corpus. It declines (returns false) where it cannot guarantee that
// cheaply, and the caller then lexes the output.
// THREADING: pure functions of their arguments.
#pragma once

#include <r2r/convert/lexer.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::converter {

struct code_tokens {
  std::vector<token> tokens;  // every token but comments, in order, up to the first error
  bool failed = false;        // the lexer returned an error token; `tokens` stops before it
  token error;                // that token, when failed
  std::string error_message;  // the lexer's message for it
};

/// Lexes all of `text`. LIFETIME: the tokens are offsets into `text`.
code_tokens lex_code(std::string_view text);

/// One rewrite: the input tokens first..last (indices, inclusive) were replaced by the output
/// bytes [out_begin, out_end). Edits are given in text order and do not overlap.
struct token_edit {
  std::size_t first = 0;
  std::size_t last = 0;
  std::size_t out_begin = 0;
  std::size_t out_end = 0;
};

/// The tokens of `out_text`, which is `in_text` with `edits` applied, from `in` (the tokens of
/// `in_text`, no error): tokens outside the edits are moved, a one-token edit that keeps an
/// identifier an identifier or a header name a header name keeps its token, and any other
/// replacement is lexed on its own. Returns false (out unspecified) when an edit spans a
/// directive or an `#if 0` block, or its replacement does not lex on its own: lex the output then.
bool splice_tokens(std::string_view in_text, const std::vector<token>& in, std::string_view out_text,
                   const std::vector<token_edit>& edits, std::vector<token>& out);

}  // namespace r2r::plugins::converter
