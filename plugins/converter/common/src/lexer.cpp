// SPDX-License-Identifier: MIT
#include "code_tokens.hpp"

#include <r2r/convert/lexer.hpp>

#include <array>
#include <cstring>

namespace r2r::plugins::converter {
namespace {

enum char_class : std::uint8_t { other = 0, blank = 1, newline = 2, ident = 3, digit = 4 };

constexpr std::array<std::uint8_t, 256> make_classes() {
  std::array<std::uint8_t, 256> c{};
  for (int i = 0; i < 256; ++i) {
    if (i == ' ' || i == '\t' || i == '\r' || i == '\f' || i == '\v') c[i] = blank;
    if (i == '\n') c[i] = newline;
    if ((i >= 'a' && i <= 'z') || (i >= 'A' && i <= 'Z') || i == '_' || i == '$' || i >= 0x80) c[i] = ident;
    if (i >= '0' && i <= '9') c[i] = digit;
  }
  return c;
}
constexpr std::array<std::uint8_t, 256> classes = make_classes();

constexpr std::array<bool, 256> make_ident_chars() {
  std::array<bool, 256> c{};
  for (int i = 0; i < 256; ++i) c[i] = classes[i] == ident || classes[i] == digit;
  return c;
}
constexpr std::array<bool, 256> ident_chars = make_ident_chars();

/// Characters skip_blanks acts on: blanks, the newline and the backslash of a splice.
constexpr std::array<bool, 256> make_skip_chars() {
  std::array<bool, 256> c{};
  for (int i = 0; i < 256; ++i) c[i] = classes[i] == blank || classes[i] == newline || i == '\\';
  return c;
}
constexpr std::array<bool, 256> skip_chars = make_skip_chars();

inline std::uint8_t cls(char c) noexcept {
  return classes[static_cast<unsigned char>(c)];
}
inline bool ident_char(char c) noexcept {
  return ident_chars[static_cast<unsigned char>(c)];
}

bool is_string_prefix(std::string_view p) noexcept {
  return p == "L" || p == "u" || p == "U" || p == "u8" || p == "R" || p == "LR" || p == "uR" || p == "UR" || p == "u8R";
}
bool is_char_prefix(std::string_view p) noexcept {
  return p == "L" || p == "u" || p == "U" || p == "u8";
}

}  // namespace

token lexer::make(token_kind kind, std::size_t begin, std::size_t end, std::int64_t line, std::int64_t column) const {
  token t;
  t.kind = kind;
  t.begin = begin;
  t.end = end;
  t.line = line;
  t.column = column;
  t.in_directive = in_directive_ || kind == token_kind::directive_hash;
  t.in_skipped_block = skip_depth_ > 0;
  return t;
}

void lexer::count_newlines(std::size_t from, std::size_t to) noexcept {
  const char* base = text_.data();
  while (from < to) {
    const void* nl = std::memchr(base + from, '\n', to - from);
    if (nl == nullptr) break;
    const auto at = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
    ++line_;
    line_start_ = at + 1;
    from = at + 1;
  }
}

bool lexer::at_splice(std::size_t pos) const noexcept {
  return splice_length(pos) != 0;
}

std::size_t lexer::splice_length(std::size_t pos) const noexcept {
  // A backslash, optional trailing blanks (compilers accept them with a warning), then a newline.
  if (pos >= text_.size() || text_[pos] != '\\') return 0;
  std::size_t p = pos + 1;
  while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\r')) ++p;
  return p < text_.size() && text_[p] == '\n' ? p + 1 - pos : 0;
}

token lexer::fail(std::string message, std::size_t begin, std::int64_t line, std::int64_t column) {
  failed_ = true;
  error_ = std::move(message);
  auto t = make(token_kind::error, begin, text_.size(), line, column);
  pos_ = text_.size();
  return t;
}

void lexer::skip_blanks() {
  const std::size_t n = text_.size();
  const char* const s = text_.data();
  while (pos_ < n) {
    const char c = s[pos_];
    const auto k = cls(c);
    if (k == blank) {
      ++pos_;
      while (pos_ < n && s[pos_] == ' ') ++pos_;  // indentation
    } else if (k == newline) {
      if (in_directive_) return;  // the caller emits directive_end
      ++pos_;
      ++line_;
      line_start_ = pos_;
      at_line_start_ = true;
    } else if (c == '\\' && at_splice(pos_)) {
      const std::size_t len = splice_length(pos_);
      count_newlines(pos_, pos_ + len);
      pos_ += len;
    } else {
      return;
    }
  }
}

std::size_t lexer::identifier_end(std::size_t pos) const noexcept {
  const char* const s = text_.data();
  const std::size_t n = text_.size();
  while (pos < n && ident_char(s[pos])) ++pos;
  return pos;
}

bool lexer::rest_of_line_is_zero(std::size_t pos) const noexcept {
  // After `#if`: blanks, then "0", then only blanks or comments to the end of the line.
  const std::size_t n = text_.size();
  while (pos < n && (text_[pos] == ' ' || text_[pos] == '\t')) ++pos;
  if (pos >= n || text_[pos] != '0') return false;
  ++pos;
  if (pos < n && ident_char(text_[pos])) return false;
  while (pos < n && text_[pos] != '\n') {
    const char c = text_[pos];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++pos;
    } else if (c == '/' && pos + 1 < n && text_[pos + 1] == '/') {
      return true;
    } else if (c == '/' && pos + 1 < n && text_[pos + 1] == '*') {
      const std::size_t close = text_.find("*/", pos + 2);
      if (close == std::string_view::npos) return false;
      pos = close + 2;
    } else {
      return false;
    }
  }
  return true;
}

void lexer::on_directive_name(std::string_view name) {
  directive_ = name;
  if (skip_depth_ > 0) {
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      ++skip_depth_;
    } else if (name == "endif") {
      --skip_depth_;
    } else if (skip_depth_ == 1 && (name == "else" || name == "elif" || name == "elifdef" || name == "elifndef")) {
      skip_depth_ = 0;
    }
  } else if (name == "if" && rest_of_line_is_zero(pos_)) {
    skip_depth_ = 1;  // the directive line itself is live; what follows is skipped
  }
  expect_header_name_ = name == "include" || name == "include_next" || name == "import";
}

token lexer::lex_comment(std::size_t begin, std::int64_t line, std::int64_t column) {
  const std::size_t n = text_.size();
  if (text_[begin + 1] == '/') {
    std::size_t p = begin + 2;
    while (p < n) {
      const void* nl = std::memchr(text_.data() + p, '\n', n - p);
      const std::size_t at = nl == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(nl) - text_.data());
      // A backslash (and optional blanks/CR) right before the newline splices the next line in.
      std::size_t q = at;
      while (q > p && (text_[q - 1] == ' ' || text_[q - 1] == '\t' || text_[q - 1] == '\r')) --q;
      if (at < n && q > p && text_[q - 1] == '\\') {
        p = at + 1;
        continue;
      }
      p = at;
      break;
    }
    auto t = make(token_kind::comment, begin, p, line, column);
    count_newlines(begin, p);
    pos_ = p;
    return t;
  }
  const std::size_t close = text_.find("*/", begin + 2);
  if (close == std::string_view::npos) {
    return fail("unterminated /* comment: expected */ before the end of the file", begin, line, column);
  }
  auto t = make(token_kind::comment, begin, close + 2, line, column);
  count_newlines(begin, close + 2);
  pos_ = close + 2;
  return t;
}

token lexer::lex_quoted(std::size_t begin, std::size_t quote, std::int64_t line, std::int64_t column) {
  const char q = text_[quote];
  const std::size_t n = text_.size();
  std::size_t p = quote + 1;
  while (p < n) {
    const char c = text_[p];
    if (c == q) {
      ++p;
      p = identifier_end(p);  // user-defined literal suffix
      const auto kind = q == '"' ? token_kind::string_literal : token_kind::char_literal;
      auto t = make(kind, begin, p, line, column);
      count_newlines(begin, p);
      pos_ = p;
      return t;
    }
    if (c == '\\') {
      if (const std::size_t len = splice_length(p)) {
        p += len;
      } else {
        p += 2;
      }
      continue;
    }
    if (c == '\n') break;
    ++p;
  }
  if (skip_depth_ > 0) {
    // Prose in an `#if 0` block ("doesn't"): a lone quote, not a literal.
    auto t = make(token_kind::punct, quote, quote + 1, line, column + static_cast<std::int64_t>(quote - begin));
    pos_ = quote + 1;
    if (begin != quote) {
      // A prefix such as L or u8 before the quote: return it as an identifier first.
      t = make(token_kind::identifier, begin, quote, line, column);
      pos_ = quote;
    }
    return t;
  }
  const char* what = q == '"' ? "string literal" : "character literal";
  return fail(std::string("unterminated ") + what + ": expected a closing " + (q == '"' ? "\"" : "'") +
                  " before the end of the line",
              begin, line, column);
}

token lexer::lex_raw(std::size_t begin, std::size_t quote, std::int64_t line, std::int64_t column) {
  const std::size_t n = text_.size();
  std::size_t p = quote + 1;
  const std::size_t delim_begin = p;
  while (p < n && text_[p] != '(' && p - delim_begin <= 16) {
    const char c = text_[p];
    if (c == ' ' || c == ')' || c == '\\' || c == '\t' || c == '\n' || c == '"') break;
    ++p;
  }
  if (p >= n || text_[p] != '(' || p - delim_begin > 16) {
    return fail("malformed raw string literal: expected R\"delimiter( with a delimiter of at most 16 characters", begin,
                line, column);
  }
  std::string closing = ")";
  closing.append(text_.substr(delim_begin, p - delim_begin));
  closing.push_back('"');
  const std::size_t close = text_.find(closing, p + 1);
  if (close == std::string_view::npos) {
    return fail("unterminated raw string literal: expected " + closing + " before the end of the file", begin, line,
                column);
  }
  const std::size_t end = identifier_end(close + closing.size());
  auto t = make(token_kind::string_literal, begin, end, line, column);
  count_newlines(begin, end);
  pos_ = end;
  return t;
}

token lexer::lex_number(std::size_t begin, std::int64_t line, std::int64_t column) {
  const std::size_t n = text_.size();
  std::size_t p = begin + 1;
  while (p < n) {
    const char c = text_[p];
    if (ident_char(c) || c == '.') {
      if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && p + 1 < n && (text_[p + 1] == '+' || text_[p + 1] == '-')) {
        p += 2;
        continue;
      }
      ++p;
    } else if (c == '\'' && p + 1 < n && ident_char(text_[p + 1])) {
      p += 2;  // digit separator
    } else {
      break;
    }
  }
  pos_ = p;
  return make(token_kind::number, begin, p, line, column);
}

token lexer::lex_to_directive_end(token_kind kind, std::size_t begin, std::int64_t line, std::int64_t column) {
  const std::size_t n = text_.size();
  std::size_t p = begin;
  while (p < n && text_[p] != '\n') {
    if (const std::size_t len = splice_length(p)) {
      p += len;
    } else {
      ++p;
    }
  }
  std::size_t end = p;
  while (end > begin && (text_[end - 1] == ' ' || text_[end - 1] == '\t' || text_[end - 1] == '\r')) --end;
  auto t = make(kind, begin, end, line, column);
  count_newlines(begin, end);
  pos_ = end;
  return t;
}

token lexer::lex_identifier(std::size_t begin, std::int64_t line, std::int64_t column) {
  const std::size_t n = text_.size();
  const std::size_t end = identifier_end(begin);
  const std::string_view word = text_.substr(begin, end - begin);
  if (end < n && text_[end] == '"' && is_string_prefix(word)) {
    return word.back() == 'R' ? lex_raw(begin, end, line, column) : lex_quoted(begin, end, line, column);
  }
  if (end < n && text_[end] == '\'' && is_char_prefix(word)) return lex_quoted(begin, end, line, column);
  pos_ = end;
  auto t = make(token_kind::identifier, begin, end, line, column);
  if (expect_directive_name_) {
    expect_directive_name_ = false;
    on_directive_name(word);
    pending_text_ = word == "error" || word == "warning";
  }
  return t;
}

token lexer::next() {
  if (failed_) return make(token_kind::end_of_file, text_.size(), text_.size(), line_, 1);
  if (pos_ < text_.size()) {
    // Most tokens follow one blank or none: only a blank, newline or backslash needs skip_blanks,
    // and a single space before a token that is not a blank is stepped over here.
    const char* const s = text_.data();
    if (skip_chars[static_cast<unsigned char>(s[pos_])]) {
      if (s[pos_] == ' ' && pos_ + 1 < text_.size() && !skip_chars[static_cast<unsigned char>(s[pos_ + 1])]) {
        ++pos_;
      } else {
        skip_blanks();
      }
    }
  }
  const std::size_t n = text_.size();
  const std::int64_t line = line_;
  const auto column = static_cast<std::int64_t>(pos_ - line_start_ + 1);
  if (pos_ >= n || (in_directive_ && text_[pos_] == '\n')) {
    if (in_directive_) {
      auto t = make(token_kind::directive_end, pos_, pos_, line, column);
      in_directive_ = false;
      expect_directive_name_ = false;
      expect_header_name_ = false;
      pending_text_ = false;
      directive_ = {};
      return t;
    }
    return make(token_kind::end_of_file, n, n, line, column);
  }
  if (pending_text_) {
    pending_text_ = false;
    return lex_to_directive_end(token_kind::directive_text, pos_, line, column);
  }
  const std::size_t begin = pos_;
  const char c = text_[begin];
  const bool first_on_line = at_line_start_;
  at_line_start_ = false;
  const auto k = cls(c);
  // An identifier character starts none of the tokens tested before identifiers below ('#', '/',
  // a header name's '<' or '"'), so identifiers, most of the tokens, go straight to their branch.
  if (k == ident) return lex_identifier(begin, line, column);

  if (c == '#' && first_on_line && !in_directive_) {
    in_directive_ = true;
    expect_directive_name_ = true;
    pos_ = begin + 1;
    return make(token_kind::directive_hash, begin, begin + 1, line, column);
  }
  if (c == '/' && begin + 1 < n && (text_[begin + 1] == '/' || text_[begin + 1] == '*')) {
    auto t = lex_comment(begin, line, column);
    // A comment is white space: `/* c */ #define` at the start of a line, or a '#' after a comment
    // that spans a newline, still starts a directive.
    if (text_[begin + 1] == '*' && t.kind == token_kind::comment) {
      at_line_start_ = first_on_line || std::memchr(text_.data() + t.begin, '\n', t.end - t.begin) != nullptr;
    }
    return t;
  }
  if (expect_header_name_ && (c == '<' || c == '"')) {
    expect_header_name_ = false;
    const char close = c == '<' ? '>' : '"';
    std::size_t p = begin + 1;
    while (p < n && text_[p] != close && text_[p] != '\n') ++p;
    if (p < n && text_[p] == close) {
      pos_ = p + 1;
      return make(token_kind::header_name, begin, p + 1, line, column);
    }
    // Not a header name (a macro expanding to one, or malformed): lex normally below.
  }
  expect_directive_name_ = false;
  if (k == digit || (c == '.' && begin + 1 < n && cls(text_[begin + 1]) == digit)) {
    return lex_number(begin, line, column);
  }
  if (c == '"' || c == '\'') return lex_quoted(begin, begin, line, column);
  // Punctuation we need to see as one token: <<< >>> :: -> ##.
  std::size_t len = 1;
  switch (c) {
    case '<':
    case '>':
      if (begin + 3 <= n && text_[begin + 1] == c && text_[begin + 2] == c) len = 3;
      break;
    case ':':
    case '#':
      if (begin + 2 <= n && text_[begin + 1] == c) len = 2;
      break;
    case '-':
      if (begin + 2 <= n && text_[begin + 1] == '>') len = 2;
      break;
    default:
      break;
  }
  if (len > 1) {
    pos_ = begin + len;
    return make(token_kind::punct, begin, begin + len, line, column);
  }
  pos_ = begin + 1;
  return make(token_kind::punct, begin, begin + 1, line, column);
}

// lex_code (code_tokens.hpp) lives here so that flatten can inline next() into its loop, and the
// vector's push_back (about 30 instructions a token otherwise). The
// reservation covers a token every 3 bytes, so the vector rarely grows; untouched capacity is
// address space only.
[[gnu::flatten]] code_tokens lex_code(std::string_view text) {
  code_tokens out;
  out.tokens.reserve(text.size() / 3 + 16);
  lexer lx(text);
  for (token t = lx.next(); t.kind != token_kind::end_of_file; t = lx.next()) {
    if (t.kind == token_kind::error) {
      out.failed = true;
      out.error = t;
      out.error_message = lx.error_message();
      break;
    }
    if (t.kind != token_kind::comment) out.tokens.push_back(t);
  }
  return out;
}

}  // namespace r2r::plugins::converter
