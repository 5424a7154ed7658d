// SPDX-License-Identifier: MIT
// What the hazard rules share: the file's significant tokens (comments and `#if 0` blocks
// dropped), lookup helpers, the constants the file defines, and report(). Each rule family lives
// in its own file (rules_wave.cpp, rules_features.cpp, rules_shared_memory.cpp).
// LIFETIME: borrows the text; one context per scanned file. THREADING: single-threaded.
#pragma once

#include <r2r/convert/lexer.hpp>
#include <r2r/sdk/kinds/converter.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace r2r::plugins::converter {

struct scan_token {
  plugins::converter::token_kind kind;
  std::string_view text;
  std::int64_t line;
  std::int64_t column;
  std::size_t begin;
  bool in_directive;
};

class scan_context {
 public:
  scan_context(std::string_view path, std::string_view text, std::vector<scan_token> tokens);

  const std::vector<scan_token>& tokens() const noexcept { return tokens_; }
  std::size_t size() const noexcept { return tokens_.size(); }
  const scan_token& at(std::size_t i) const noexcept { return tokens_[i]; }

  /// Token i exists and its text is s (any kind except literals).
  bool is(std::size_t i, std::string_view s) const noexcept;
  bool is_ident(std::size_t i) const noexcept;
  bool is_number(std::size_t i) const noexcept;

  /// Index of the bracket closing the one at `open` ("(" "[" "{" "<"), or npos. `<` is matched
  /// only across tokens that can appear in template arguments.
  std::size_t matching(std::size_t open) const noexcept;

  /// The top-level comma-separated ranges of tokens strictly between open and close (brackets
  /// (), [] and {} nest; template angle brackets are not tracked).
  std::vector<std::pair<std::size_t, std::size_t>> arguments(std::size_t open, std::size_t close) const;

  /// The source text from token `first` through token `last` (inclusive), comments included.
  std::string_view source(std::size_t first, std::size_t last) const noexcept;

  /// Tokens [begin, end) joined by single spaces, for messages.
  std::string spelled(std::size_t begin, std::size_t end) const;

  /// Value of the integer literal at i ("32", "0x1f", "65536u", "1'024"), if it is one.
  std::optional<std::uint64_t> integer(std::size_t i) const noexcept;

  /// Value of the constant expression in tokens [begin, end): integer literals, names defined by
  /// `#define N <expr>` or `const[expr] <int type> N = <expr>;` in this file, sizeof of the
  /// builtin and vector types, and + - * / % << >> parentheses. nullopt when not constant.
  std::optional<std::int64_t> evaluate(std::size_t begin, std::size_t end) const;

  /// Byte size of a type spelled by tokens [begin, end) ("float", "unsigned int", "__half",
  /// "float4"...), or nullopt.
  std::optional<std::int64_t> type_size(std::size_t begin, std::size_t end) const;

  /// True when the file contains identifier `name` anywhere in code.
  bool mentions(std::string_view name) const;

  /// Records a hazard of `rule_id` at token i (at most once per rule and line).
  void report(std::string_view rule_id, std::size_t i, std::string message);

  std::vector<sdk::converter::hazard> take() { return std::move(hazards_); }

 private:
  std::string excerpt(std::size_t begin) const;
  void collect_constants();
  std::optional<std::int64_t> evaluate_at_depth(std::size_t begin, std::size_t end, int depth) const;

  std::string_view path_;
  std::string_view text_;
  std::vector<scan_token> tokens_;
  std::map<std::string_view, std::pair<std::size_t, std::size_t>> constants_;  // name -> token range
  std::set<std::pair<std::string_view, std::int64_t>> reported_;
  std::vector<sdk::converter::hazard> hazards_;
};

void scan_wave_rules(scan_context& ctx);
void scan_feature_rules(scan_context& ctx);
void scan_shared_memory_rules(scan_context& ctx);

}  // namespace r2r::plugins::converter
