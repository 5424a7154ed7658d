// SPDX-License-Identifier: MIT
#include "scan_context.hpp"

#include "hazard_catalog.hpp"

#include <array>
#include <charconv>

namespace r2r::plugins::converter {
namespace {

using plugins::converter::token_kind;

constexpr std::array<std::pair<std::string_view, std::int64_t>, 44> type_sizes{{
    {"char", 1},     {"signed char", 1}, {"unsigned char", 1},  {"bool", 1},          {"int8_t", 1},
    {"uint8_t", 1},  {"short", 2},       {"unsigned short", 2}, {"int16_t", 2},       {"uint16_t", 2},
    {"half", 2},     {"__half", 2},      {"hip_bfloat16", 2},   {"__nv_bfloat16", 2}, {"__hip_bfloat16", 2},
    {"int", 4},      {"unsigned", 4},    {"unsigned int", 4},   {"signed", 4},        {"int32_t", 4},
    {"uint32_t", 4}, {"float", 4},       {"half2", 4},          {"__half2", 4},       {"char4", 4},
    {"uchar4", 4},   {"long", 8},        {"unsigned long", 8},  {"long long", 8},     {"unsigned long long", 8},
    {"int64_t", 8},  {"uint64_t", 8},    {"size_t", 8},         {"double", 8},        {"float2", 8},
    {"int2", 8},     {"uint2", 8},       {"float3", 12},        {"int3", 12},         {"float4", 16},
    {"int4", 16},    {"uint4", 16},      {"double2", 16},       {"double4", 32},
}};

bool integral_type_word(std::string_view w) {
  return w == "int" || w == "unsigned" || w == "long" || w == "short" || w == "size_t" || w == "int32_t" ||
         w == "uint32_t" || w == "int64_t" || w == "uint64_t" || w == "auto";
}

/// Recursive-descent evaluator over scan tokens; every failure returns nullopt.
class evaluator {
 public:
  evaluator(const scan_context& ctx, std::size_t begin, std::size_t end, int depth,
            std::optional<std::int64_t> (*lookup)(const scan_context&, std::string_view, int))
      : ctx_(ctx), pos_(begin), end_(end), depth_(depth), lookup_(lookup) {}

  std::optional<std::int64_t> run() {
    auto v = shift();
    if (!v || pos_ != end_) return std::nullopt;
    return v;
  }

 private:
  bool two(std::string_view op) const {
    // << and >> arrive as two adjacent one-character tokens.
    return pos_ + 1 < end_ && ctx_.is(pos_, op.substr(0, 1)) && ctx_.is(pos_ + 1, op.substr(1, 1)) &&
           ctx_.at(pos_ + 1).begin == ctx_.at(pos_).begin + 1;
  }
  std::optional<std::int64_t> shift() {
    auto left = add();
    while (left && (two("<<") || two(">>"))) {
      const bool is_left = ctx_.is(pos_, "<");
      pos_ += 2;
      auto right = add();
      if (!right || *right < 0 || *right > 62) return std::nullopt;
      left = is_left ? *left << *right : *left >> *right;
    }
    return left;
  }
  std::optional<std::int64_t> add() {
    auto left = mul();
    while (left && pos_ < end_ && (ctx_.is(pos_, "+") || ctx_.is(pos_, "-"))) {
      const bool plus = ctx_.is(pos_, "+");
      ++pos_;
      auto right = mul();
      if (!right) return std::nullopt;
      left = plus ? *left + *right : *left - *right;
    }
    return left;
  }
  std::optional<std::int64_t> mul() {
    auto left = unary();
    while (left && pos_ < end_ && (ctx_.is(pos_, "*") || ctx_.is(pos_, "/") || ctx_.is(pos_, "%"))) {
      const char op = ctx_.at(pos_).text[0];
      ++pos_;
      auto right = unary();
      if (!right || ((op == '/' || op == '%') && *right == 0)) return std::nullopt;
      if (op == '*') {
        if (*left != 0 && (*right > (std::int64_t{1} << 40) || *left > (std::int64_t{1} << 40))) return std::nullopt;
        left = *left * *right;
      } else {
        left = op == '/' ? *left / *right : *left % *right;
      }
    }
    return left;
  }
  std::optional<std::int64_t> unary() {
    if (pos_ < end_ && ctx_.is(pos_, "-")) {
      ++pos_;
      auto v = unary();
      return v ? std::optional<std::int64_t>(-*v) : std::nullopt;
    }
    if (pos_ < end_ && ctx_.is(pos_, "+")) {
      ++pos_;
      return unary();
    }
    return primary();
  }
  std::optional<std::int64_t> primary() {
    if (pos_ >= end_) return std::nullopt;
    if (ctx_.is(pos_, "(")) {
      const std::size_t close = ctx_.matching(pos_);
      if (close == std::string_view::npos || close >= end_) return std::nullopt;
      evaluator inner(ctx_, pos_ + 1, close, depth_, lookup_);
      auto v = inner.run();
      pos_ = close + 1;
      return v;
    }
    if (ctx_.is(pos_, "sizeof") && ctx_.is(pos_ + 1, "(")) {
      const std::size_t close = ctx_.matching(pos_ + 1);
      if (close == std::string_view::npos || close >= end_) return std::nullopt;
      auto v = ctx_.type_size(pos_ + 2, close);
      pos_ = close + 1;
      return v;
    }
    if (ctx_.is_number(pos_)) {
      auto v = ctx_.integer(pos_);
      ++pos_;
      if (!v || *v > (std::uint64_t{1} << 62)) return std::nullopt;
      return static_cast<std::int64_t>(*v);
    }
    if (ctx_.is_ident(pos_)) {
      auto v = lookup_(ctx_, ctx_.at(pos_).text, depth_ + 1);
      ++pos_;
      return v;
    }
    return std::nullopt;
  }

  const scan_context& ctx_;
  std::size_t pos_;
  std::size_t end_;
  int depth_;
  std::optional<std::int64_t> (*lookup_)(const scan_context&, std::string_view, int);
};

}  // namespace

scan_context::scan_context(std::string_view path, std::string_view text, std::vector<scan_token> tokens)
    : path_(path), text_(text), tokens_(std::move(tokens)) {
  collect_constants();
}

bool scan_context::is(std::size_t i, std::string_view s) const noexcept {
  if (i >= tokens_.size()) return false;
  const auto k = tokens_[i].kind;
  return (k == token_kind::identifier || k == token_kind::punct || k == token_kind::number) && tokens_[i].text == s;
}

bool scan_context::is_ident(std::size_t i) const noexcept {
  return i < tokens_.size() && tokens_[i].kind == token_kind::identifier;
}

bool scan_context::is_number(std::size_t i) const noexcept {
  return i < tokens_.size() && tokens_[i].kind == token_kind::number;
}

bool scan_context::mentions(std::string_view name) const {
  for (const auto& t : tokens_) {
    if (t.kind == token_kind::identifier && t.text == name) return true;
  }
  return false;
}

std::size_t scan_context::matching(std::size_t open) const noexcept {
  if (open >= tokens_.size()) return std::string_view::npos;
  const std::string_view o = tokens_[open].text;
  const std::string_view c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : o == "<" ? ">" : "";
  if (c.empty() || tokens_[open].kind != token_kind::punct) return std::string_view::npos;
  int depth = 0;
  for (std::size_t i = open; i < tokens_.size(); ++i) {
    if (tokens_[i].kind != token_kind::punct) continue;
    const std::string_view t = tokens_[i].text;
    if (o == "<" && (t == ";" || t == "{" || t == "}")) return std::string_view::npos;
    if (t == o) ++depth;
    if (t == c && --depth == 0) return i;
  }
  return std::string_view::npos;
}

std::vector<std::pair<std::size_t, std::size_t>> scan_context::arguments(std::size_t open, std::size_t close) const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  if (close == std::string_view::npos || close <= open) return out;
  int depth = 0;
  std::size_t start = open + 1;
  for (std::size_t i = open + 1; i < close; ++i) {
    if (tokens_[i].kind != token_kind::punct) continue;
    const std::string_view t = tokens_[i].text;
    if (t == "(" || t == "[" || t == "{") ++depth;
    if (t == ")" || t == "]" || t == "}") --depth;
    if (t == "," && depth == 0) {
      out.emplace_back(start, i);
      start = i + 1;
    }
  }
  if (start < close || !out.empty()) out.emplace_back(start, close);
  return out;
}

std::string_view scan_context::source(std::size_t first, std::size_t last) const noexcept {
  if (first >= tokens_.size() || last >= tokens_.size() || last < first) return {};
  const std::size_t begin = tokens_[first].begin;
  const std::size_t end = tokens_[last].begin + tokens_[last].text.size();
  return text_.substr(begin, end - begin);
}

std::string scan_context::spelled(std::size_t begin, std::size_t end) const {
  std::string out;
  for (std::size_t i = begin; i < end && i < tokens_.size(); ++i) {
    if (!out.empty()) out += ' ';
    out += tokens_[i].text;
  }
  return out;
}

std::optional<std::uint64_t> scan_context::integer(std::size_t i) const noexcept {
  if (!is_number(i)) return std::nullopt;
  std::string digits;
  for (const char ch : tokens_[i].text) {
    if (ch != '\'') digits += ch;
  }
  while (!digits.empty() &&
         (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' || digits.back() == 'L'))
    digits.pop_back();
  int base = 10;
  std::size_t skip = 0;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16, skip = 2;
  } else if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
    base = 2, skip = 2;
  } else if (digits.size() > 1 && digits[0] == '0') {
    base = 8, skip = 1;
  }
  std::uint64_t value = 0;
  const char* first = digits.data() + skip;
  const char* last = digits.data() + digits.size();
  const auto [end, ec] = std::from_chars(first, last, value, base);
  if (ec != std::errc() || end != last || first == last) return std::nullopt;
  return value;
}

std::optional<std::int64_t> scan_context::type_size(std::size_t begin, std::size_t end) const {
  std::string spelled;
  for (std::size_t i = begin; i < end; ++i) {
    const std::string_view w = tokens_[i].text;
    if (w == "const" || w == "volatile" || w == "std" || w == "::" || w == "__restrict__") continue;
    if (tokens_[i].kind != token_kind::identifier) return std::nullopt;
    if (!spelled.empty()) spelled += ' ';
    spelled += w;
  }
  for (const auto& [name, size] : type_sizes) {
    if (name == spelled) return size;
  }
  return std::nullopt;
}

void scan_context::collect_constants() {
  for (std::size_t i = 0; i + 1 < tokens_.size(); ++i) {
    // #define NAME <expression>   (object-like: no '(' glued to the name)
    if (tokens_[i].kind == token_kind::directive_hash && is(i + 1, "define") && is_ident(i + 2)) {
      const std::size_t name = i + 2;
      if (is(name + 1, "(") && tokens_[name + 1].begin == tokens_[name].begin + tokens_[name].text.size()) continue;
      std::size_t end = name + 1;
      while (end < tokens_.size() && tokens_[end].kind != token_kind::directive_end) ++end;
      if (end > name + 1) constants_[tokens_[name].text] = {name + 1, end};
      continue;
    }
    // [static] const|constexpr <integral type...> NAME = <expression> ;
    if (is_ident(i) && is(i + 1, "=") && i >= 2 && integral_type_word(tokens_[i - 1].text)) {
      bool qualified = false;
      for (std::size_t back = 2; back <= 5 && back <= i; ++back) {
        const std::string_view w = tokens_[i - back].text;
        if (w == "const" || w == "constexpr") qualified = true;
        if (w == ";" || w == "{" || w == "}") break;
      }
      if (!qualified) continue;
      std::size_t end = i + 2;
      while (end < tokens_.size() && !is(end, ";") && !is(end, ",")) ++end;
      if (end > i + 2) constants_[tokens_[i].text] = {i + 2, end};
    }
  }
}

std::optional<std::int64_t> scan_context::evaluate(std::size_t begin, std::size_t end) const {
  return evaluate_at_depth(begin, end, 0);
}

std::optional<std::int64_t> scan_context::evaluate_at_depth(std::size_t begin, std::size_t end, int depth) const {
  if (begin >= end || end > tokens_.size() || depth > 8) return std::nullopt;
  const auto lookup = [](const scan_context& ctx, std::string_view name, int d) -> std::optional<std::int64_t> {
    const auto it = ctx.constants_.find(name);
    if (it == ctx.constants_.end()) return std::nullopt;
    return ctx.evaluate_at_depth(it->second.first, it->second.second, d);
  };
  return evaluator(*this, begin, end, depth, lookup).run();
}

std::string scan_context::excerpt(std::size_t begin) const {
  std::size_t start = text_.rfind('\n', begin);
  start = start == std::string_view::npos ? 0 : start + 1;
  std::size_t stop = text_.find('\n', begin);
  if (stop == std::string_view::npos) stop = text_.size();
  std::string_view line = text_.substr(start, stop - start);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  if (line.size() > 200) {
    std::size_t cut = 200;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
    return std::string(line.substr(0, cut)) + "...";
  }
  return std::string(line);
}

void scan_context::report(std::string_view rule_id, std::size_t i, std::string message) {
  const scan_token& t = tokens_[i];
  if (!reported_.insert({rule_id, t.line}).second) return;
  const hazard_rule& rule = hazard_rule_by_id(rule_id);
  sdk::converter::hazard h;
  h.file = std::string(path_);
  h.line = t.line;
  h.column = t.column;
  h.severity = std::string(rule.severity);
  h.rule = std::string(rule.id);
  h.message = std::move(message);
  h.why = std::string(rule.why);
  h.fix = std::string(rule.fix);
  for (const auto a : rule.affects) h.affects.emplace_back(a);
  h.excerpt = excerpt(t.begin);
  hazards_.push_back(std::move(h));
}

}  // namespace r2r::plugins::converter
