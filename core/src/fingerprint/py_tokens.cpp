// SPDX-License-Identifier: MIT
#include "py_tokens.hpp"

#include <algorithm>
#include <cctype>

namespace r2r::planning::py {
namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
bool ident_char(char c) {
  return ident_start(c) || std::isdigit(static_cast<unsigned char>(c));
}

/// Length of a string prefix (r, b, u, f and two-letter combinations) at `i` followed by a quote, else 0.
std::size_t string_prefix(std::string_view s, std::size_t i) {
  std::size_t n = 0;
  while (n < 2 && i + n < s.size() && std::string_view("rRbBuUfF").find(s[i + n]) != std::string_view::npos) ++n;
  if (i + n < s.size() && (s[i + n] == '"' || s[i + n] == '\'')) return n;
  if (n == 2 && (s[i + 1] == '"' || s[i + 1] == '\'')) return 1;
  return 0;
}

}  // namespace

token_stream tokenize(std::string_view s) {
  token_stream out;
  int line = 1;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      i += 2;
      ++line;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '"' || c == '\'' || (ident_start(c) && string_prefix(s, i) > 0)) {
      i += c == '"' || c == '\'' ? 0 : string_prefix(s, i);
      const char q = s[i];
      const bool triple = i + 2 < s.size() && s[i + 1] == q && s[i + 2] == q;
      const int start_line = line;
      i += triple ? 3 : 1;
      std::string value;
      bool closed = false;
      while (i < s.size()) {
        if (s[i] == '\\' && i + 1 < s.size()) {
          if (s[i + 1] == '\n') ++line;
          value += s[i];
          value += s[i + 1];
          i += 2;
          continue;
        }
        if (s[i] == '\n') {
          if (!triple) break;
          ++line;
        }
        if (s[i] == q && (!triple || (i + 2 < s.size() && s[i + 1] == q && s[i + 2] == q))) {
          i += triple ? 3 : 1;
          closed = true;
          break;
        }
        value += s[i++];
      }
      if (!closed) {
        out.error_line = start_line;
        return out;
      }
      out.tokens.push_back({tok::string, std::move(value), start_line});
    } else if (ident_start(c)) {
      const std::size_t b = i;
      while (i < s.size() && ident_char(s[i])) ++i;
      out.tokens.push_back({tok::name, std::string(s.substr(b, i - b)), line});
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t b = i;
      while (i < s.size() && (ident_char(s[i]) || s[i] == '.')) ++i;
      out.tokens.push_back({tok::number, std::string(s.substr(b, i - b)), line});
    } else {
      static const std::string_view two[] = {"**", "//", "==", "!=", "<=", ">=", "->", ":=", "+=", "-=", "*=", "/="};
      std::size_t n = 1;
      for (auto t : two)
        if (s.substr(i, 2) == t) n = 2;
      out.tokens.push_back({tok::op, std::string(s.substr(i, n)), line});
      i += n;
    }
  }
  return out;
}

std::vector<call> find_calls(const token_stream& ts, const std::vector<std::string_view>& names) {
  std::vector<call> out;
  const auto& t = ts.tokens;
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind != tok::name || t[i + 1].text != "(" || t[i + 1].kind != tok::op) continue;
    if (std::find(names.begin(), names.end(), t[i].text) == names.end()) continue;
    if (i > 0 && t[i - 1].kind == tok::name && t[i - 1].text == "def") continue;  // a definition, not a call
    call c;
    std::string callee = t[i].text;
    for (std::size_t j = i; j >= 2 && t[j - 1].text == "." && t[j - 2].kind == tok::name; j -= 2)
      callee = t[j - 2].text + "." + callee;
    c.callee = callee;
    c.line = t[i].line;
    c.open = i + 1;
    int depth = 0;
    argument cur;
    cur.begin = i + 2;
    std::size_t j = i + 1;
    for (; j < t.size(); ++j) {
      const auto& x = t[j];
      if (x.kind == tok::op && (x.text == "(" || x.text == "[" || x.text == "{")) {
        ++depth;
        continue;
      }
      if (x.kind == tok::op && (x.text == ")" || x.text == "]" || x.text == "}")) {
        if (--depth == 0) break;
        continue;
      }
      if (depth != 1) continue;
      if (x.kind == tok::op && x.text == ",") {
        cur.end = j;
        if (cur.end > cur.begin) c.args.push_back(cur);
        cur = argument{};
        cur.begin = j + 1;
      } else if (j == cur.begin && x.kind == tok::name && j + 1 < t.size() && t[j + 1].kind == tok::op &&
                 t[j + 1].text == "=") {
        cur.keyword = x.text;
        cur.begin = j + 2;
        ++j;
      }
    }
    c.closed = j < t.size();
    c.close = j;
    cur.end = std::min(j, t.size());
    if (cur.end > cur.begin) c.args.push_back(cur);
    out.push_back(std::move(c));
  }
  return out;
}

const argument* arg(const call& c, std::string_view keyword, int position) {
  for (const auto& a : c.args)
    if (a.keyword == keyword) return &a;
  int n = 0;
  for (const auto& a : c.args) {
    if (!a.keyword.empty()) break;
    if (n++ == position) return &a;
  }
  return nullptr;
}

std::vector<std::pair<std::string, int>> literals(const token_stream& ts, const argument& a) {
  std::vector<std::pair<std::string, int>> out;
  for (std::size_t i = a.begin; i < a.end && i < ts.tokens.size(); ++i) {
    const auto& x = ts.tokens[i];
    if (x.kind != tok::string) continue;
    if (i > a.begin && ts.tokens[i - 1].kind == tok::string && !out.empty()) {
      out.back().first += x.text;  // implicit concatenation "a" "b"
    } else {
      out.emplace_back(x.text, x.line);
    }
  }
  return out;
}

}  // namespace r2r::planning::py
