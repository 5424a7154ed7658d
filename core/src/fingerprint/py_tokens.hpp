// SPDX-License-Identifier: MIT
// A Python tokenizer just deep enough to read call expressions statically (setup.py's
// CUDAExtension(...), cpp_extension.load(...), @triton.jit decorators) across lines: names, string
// literals (prefixes, triple quotes, implicit concatenation left to the caller), numbers and
// operators, with 1-based lines. Comments and line continuations are dropped. It never throws;
// text it cannot read (an unterminated string) ends the token stream and sets `error_line`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace r2r::planning::py {

enum class tok { name, string, number, op };

struct token {
  tok kind;
  std::string text;  // a name, a string literal's value (escapes kept verbatim), a number or an operator
  int line = 0;      // where the token starts
};

struct token_stream {
  std::vector<token> tokens;
  int error_line = 0;  // 0: the whole text was read
};

token_stream tokenize(std::string_view source);

/// One argument of a call: its keyword (empty when positional) and the tokens of its value.
struct argument {
  std::string keyword;
  std::size_t begin = 0, end = 0;  // value tokens [begin, end) in the stream
};

/// A call `callee(args...)`; `callee` is the dotted name before '(' ("torch.utils.cpp_extension.load").
struct call {
  std::string callee;
  int line = 0;
  std::size_t open = 0, close = 0;  // indices of '(' and its matching ')'
  std::vector<argument> args;
  bool closed = true;  // false when the text ends before the matching ')'
};

/// Every call whose callee's last dotted component is one of `names`.
std::vector<call> find_calls(const token_stream& ts, const std::vector<std::string_view>& names);

/// The argument named `keyword`, else the positional argument at `position` (-1: none).
const argument* arg(const call& c, std::string_view keyword, int position);

/// The string literals of an argument value, with their lines (a literal, a list/tuple of literals,
/// or literals anywhere inside an expression such as glob.glob("csrc/*.cu")).
std::vector<std::pair<std::string, int>> literals(const token_stream& ts, const argument& a);

}  // namespace r2r::planning::py
