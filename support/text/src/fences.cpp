// SPDX-License-Identifier: MIT
#include <r2r/support/text/fences.hpp>

#include <algorithm>
#include <cctype>

namespace r2r::text {
namespace {

struct fence_run {
  char ch = 0;
  std::size_t length = 0;
  std::string_view rest;  // what follows the run, trimmed
};

/// The fence a trimmed line starts with, when it does (length 0 otherwise).
fence_run fence_of(std::string_view t) {
  fence_run f;
  if (t.empty() || (t.front() != '`' && t.front() != '~')) return f;
  std::size_t n = 0;
  while (n < t.size() && t[n] == t.front()) ++n;
  if (n < 3) return f;
  f.rest = trim(t.substr(n));
  // A backtick fence's info string cannot hold a backtick (that is inline code, not a fence).
  if (t.front() == '`' && f.rest.find('`') != std::string_view::npos) return f;
  f.ch = t.front();
  f.length = n;
  return f;
}

std::string language_of(std::string_view info) {
  std::string_view first = info.substr(0, info.find_first_of(" \t,"));
  while (!first.empty() && (first.front() == '{' || first.front() == '.')) first.remove_prefix(1);
  while (!first.empty() && first.back() == '}') first.remove_suffix(1);
  std::string out(first);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    const auto end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

std::vector<fenced_block> fenced_blocks(std::string_view markdown) {
  std::vector<fenced_block> out;
  const auto lines = split_lines(markdown);
  fence_run open;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    const auto f = fence_of(trim(lines[i]));
    if (open.length == 0) {
      if (f.length == 0) continue;
      open = f;
      fenced_block b;
      b.info = std::string(f.rest);
      b.language = language_of(f.rest);
      b.open_line = ln;
      out.push_back(std::move(b));
      continue;
    }
    if (f.length >= open.length && f.ch == open.ch && f.rest.empty()) {
      out.back().close_line = ln;
      open = {};
      continue;
    }
    out.back().lines.push_back(lines[i]);
  }
  return out;
}

}  // namespace r2r::text
