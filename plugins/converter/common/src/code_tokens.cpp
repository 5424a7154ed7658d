// SPDX-License-Identifier: MIT
// Why splicing is exact: a token's line is 1 + the newlines before it and its column its distance
// from the last newline, so both follow from the byte offset; and the lexer's state after a
// replaced span is the state after the span it replaced when the span is ordinary code (no
// directive, no `#if 0` block), starts with an identifier character where the old span started
// with one (what precedes ends the same way) and ends in a closing punctuator that joins nothing
// that follows. Anything else is declined.
#include "code_tokens.hpp"
#include "text_search.hpp"

#include <cstdint>
#include <cstring>

namespace r2r::plugins::converter {
namespace {

bool ident_start(char c) noexcept {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u == '$' || u >= 0x80;
}

bool ident_char(char c) noexcept {
  return ident_start(c) || (c >= '0' && c <= '9');
}

/// `with` lexes as one identifier, the way the lexer would see it followed by `next`.
bool is_plain_identifier(std::string_view with, char next) noexcept {
  if (with.empty() || !ident_start(with.front())) return false;
  for (const char c : with) {
    if (!ident_char(c)) return false;
  }
  return next != '"' && next != '\'';  // else it could be a literal's prefix (u8"...")
}

/// `with` lexes as one header name opening with `open`.
bool is_header_name(std::string_view with, char open) noexcept {
  if (with.size() < 2 || with.front() != open) return false;
  const char close = open == '<' ? '>' : '"';
  if (with.back() != close) return false;
  const std::string_view inner = with.substr(1, with.size() - 2);
  return inner.find(close) == std::string_view::npos && inner.find('\n') == std::string_view::npos;
}

}  // namespace

bool splice_tokens(std::string_view in_text, const std::vector<token>& in, std::string_view out_text,
                   const std::vector<token_edit>& edits, std::vector<token>& out) {
  out.clear();
  out.reserve(in.size() + 8 * edits.size());
  std::int64_t byte_shift = 0;  // out offset - in offset, after the last edit
  std::int64_t line_shift = 0;
  // Tokens on the line the last edit ended on (in the input) take their column from its new end.
  bool fix_column = false;
  std::int64_t fix_line = 0;
  std::size_t fix_in_end = 0;
  std::int64_t fix_out_column = 0;
  const auto moved = [&](token t) {
    if (fix_column && t.line == fix_line) t.column = fix_out_column + static_cast<std::int64_t>(t.begin - fix_in_end);
    t.begin = static_cast<std::size_t>(static_cast<std::int64_t>(t.begin) + byte_shift);
    t.end = static_cast<std::size_t>(static_cast<std::int64_t>(t.end) + byte_shift);
    t.line += line_shift;
    return t;
  };
  // moved() of in[from, to), appended in bulk: a copy, then the few tokens on fix_line, then a
  // tight loop over the rest (lines never decrease, so fix_line's tokens come first).
  const auto append_moved = [&](std::size_t from, std::size_t to) {
    const std::size_t at = out.size();
    out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(from), in.begin() + static_cast<std::ptrdiff_t>(to));
    token* p = out.data() + at;
    token* const end = out.data() + out.size();
    for (; fix_column && p != end && p->line == fix_line; ++p) *p = moved(*p);
    for (; p != end; ++p) {
      p->begin = static_cast<std::size_t>(static_cast<std::int64_t>(p->begin) + byte_shift);
      p->end = static_cast<std::size_t>(static_cast<std::int64_t>(p->end) + byte_shift);
      p->line += line_shift;
    }
  };
  std::size_t k = 0;
  for (const token_edit& e : edits) {
    if (e.first < k || e.last < e.first || e.last >= in.size() || e.out_end < e.out_begin ||
        e.out_end > out_text.size())
      return false;
    append_moved(k, e.first);
    const token& first = in[e.first];
    const token& last = in[e.last];
    const token start = moved(first);  // where the replacement starts: its line and column
    if (start.begin != e.out_begin) return false;
    const std::string_view with = out_text.substr(e.out_begin, e.out_end - e.out_begin);
    const char next = e.out_end < out_text.size() ? out_text[e.out_end] : '\0';
    const bool after_hash = e.first > 0 && in[e.first - 1].kind == token_kind::directive_hash;
    std::int64_t with_newlines = 0;
    if (e.first == e.last && first.kind == token_kind::identifier && !after_hash && is_plain_identifier(with, next)) {
      token t = start;
      t.end = e.out_end;
      out.push_back(t);
    } else if (e.first == e.last && first.kind == token_kind::header_name &&
               is_header_name(with, in_text[first.begin])) {
      token t = start;
      t.end = e.out_end;
      out.push_back(t);
    } else {
      for (std::size_t i = e.first; i <= e.last; ++i) {
        if (in[i].in_directive || in[i].in_skipped_block) return false;
      }
      if (first.kind != token_kind::identifier || with.empty() || !ident_start(with.front())) return false;
      const char end_char = with.back();
      if (end_char != ')' && end_char != ']' && end_char != '}' && end_char != ';' && end_char != ',') return false;
      const code_tokens part = lex_code(with);
      if (part.failed || part.tokens.empty() || part.tokens.front().begin != 0 || part.tokens.back().end != with.size())
        return false;
      for (token t : part.tokens) {
        if (t.in_directive || t.in_skipped_block) return false;
        if (t.line == 1) t.column += start.column - 1;
        t.line += start.line - 1;
        t.begin += e.out_begin;
        t.end += e.out_begin;
        out.push_back(t);
      }
      with_newlines = count_newlines(with);
    }
    const std::string_view replaced = in_text.substr(first.begin, last.end - first.begin);
    byte_shift += static_cast<std::int64_t>(with.size()) - static_cast<std::int64_t>(replaced.size());
    line_shift += with_newlines - count_newlines(replaced);
    fix_column = true;
    fix_line = last.line + count_newlines(in_text.substr(last.begin, last.end - last.begin));
    fix_in_end = last.end;
    const std::size_t last_newline = with.rfind('\n');
    fix_out_column = last_newline == std::string_view::npos ? start.column + static_cast<std::int64_t>(with.size())
                                                            : static_cast<std::int64_t>(with.size() - last_newline);
    k = e.last + 1;
  }
  append_moved(k, in.size());
  return true;
}

}  // namespace r2r::plugins::converter
