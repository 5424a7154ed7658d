// SPDX-License-Identifier: MIT
// A C++/CUDA lexer for source-to-source rewriting: it finds identifiers, literals, comments,
// preprocessor directives and `<<<`/`>>>` without building a syntax tree, so a rewrite can change
// identifiers while leaving every comment, string, raw string and character literal byte-exact.
//
// What it understands: // and /* */ comments (with backslash-newline splices), "..." and '...'
// literals with u8/u/U/L prefixes and user-defined suffixes, raw strings R"delim(...)delim",
// pp-numbers with digit separators (1'000), directives (a '#' first on a line, continued by
// backslash-newline) with header names after #include/#include_next/#import, #error/#warning text,
// and `#if 0` blocks (tracked so that prose with apostrophes there is not an error).
//
// Errors (the text is not C++ a converter may touch): an unterminated /* comment or raw string,
// and an unterminated "..." or '...' literal outside an `#if 0` block. next() then returns a
// token of kind error; error_message() says what was expected and what was found.
//
// LIFETIME: the lexer borrows the text; it must outlive the lexer and every token's view.
// THREADING: one lexer per thread; no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace r2r::plugins::converter {

enum class token_kind : std::uint8_t {
  identifier,
  number,
  string_literal,  // "..." and raw strings, with prefix and suffix
  char_literal,
  comment,         // // or /* */
  header_name,     // <...> or "..." after #include, delimiters included
  directive_text,  // the message of #error / #warning, to the end of the directive
  punct,           // one character, or one of :: -> <<< >>> ##
  directive_hash,  // the '#' that starts a directive
  directive_end,   // zero-width, at the newline (or end of file) that ends a directive
  end_of_file,
  error
};

struct token {
  token_kind kind = token_kind::end_of_file;
  std::size_t begin = 0;  // byte offsets into the text
  std::size_t end = 0;
  std::int64_t line = 1;          // of `begin`, 1-based
  std::int64_t column = 1;        // of `begin`, 1-based byte column
  bool in_directive = false;      // part of a preprocessor directive line
  bool in_skipped_block = false;  // inside `#if 0` ... `#endif`
};

class lexer {
 public:
  explicit lexer(std::string_view text) noexcept : text_(text) {}

  /// The next token; whitespace and newlines outside directives are skipped.
  token next();

  std::string_view text_of(const token& t) const noexcept { return text_.substr(t.begin, t.end - t.begin); }
  std::string_view text() const noexcept { return text_; }
  /// Set when next() returned an error token.
  const std::string& error_message() const noexcept { return error_; }
  /// The name of the directive the current line belongs to ("include", "define", ...), or empty.
  std::string_view directive_name() const noexcept { return directive_; }

 private:
  token make(token_kind kind, std::size_t begin, std::size_t end, std::int64_t line, std::int64_t column) const;
  void skip_blanks();
  void count_newlines(std::size_t from, std::size_t to) noexcept;
  bool at_splice(std::size_t pos) const noexcept;
  std::size_t splice_length(std::size_t pos) const noexcept;
  token lex_comment(std::size_t begin, std::int64_t line, std::int64_t column);
  token lex_quoted(std::size_t begin, std::size_t quote, std::int64_t line, std::int64_t column);
  token lex_raw(std::size_t begin, std::size_t quote, std::int64_t line, std::int64_t column);
  token lex_number(std::size_t begin, std::int64_t line, std::int64_t column);
  token lex_identifier(std::size_t begin, std::int64_t line, std::int64_t column);
  token lex_to_directive_end(token_kind kind, std::size_t begin, std::int64_t line, std::int64_t column);
  token fail(std::string message, std::size_t begin, std::int64_t line, std::int64_t column);
  void on_directive_name(std::string_view name);
  bool rest_of_line_is_zero(std::size_t pos) const noexcept;
  std::size_t identifier_end(std::size_t pos) const noexcept;

  std::string_view text_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1;
  std::size_t line_start_ = 0;
  bool at_line_start_ = true;  // only blanks since the last newline
  bool in_directive_ = false;
  bool expect_directive_name_ = false;
  bool expect_header_name_ = false;
  bool pending_text_ = false;  // the next token is the text of #error / #warning
  bool failed_ = false;
  std::string_view directive_;
  int skip_depth_ = 0;  // > 0 inside #if 0 (nesting depth)
  std::string error_;
};

}  // namespace r2r::plugins::converter
