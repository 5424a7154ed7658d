// SPDX-License-Identifier: MIT
// Text, Markdown and LaTeX sources into lines of cells (document.hpp). Table rows keep the
// source's own cell syntax; other lines are one cell, or cells split by runs of 2+ spaces or tabs
// in plain text (column-aligned tables of .txt sources).
#include <r2r/paper/document.hpp>

#include "utf8.hpp"

#include <algorithm>
#include <cctype>

namespace r2r::paper {
namespace {

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_on(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// LaTeX markup to plain text: symbols to their characters, \cmd{arg} to arg, other commands,
// braces and math shifts dropped, comments removed.
std::string latex_plain(std::string s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && (i == 0 || s[i - 1] != '\\')) {
      s.resize(i);
      break;
    }
  }
  replace_all(s, "\\caption{", "Table: ");
  replace_all(s, "\\%", "%");
  replace_all(s, "\\times", "×");
  replace_all(s, "\\pm", "±");
  replace_all(s, "~", " ");
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      std::size_t j = i + 1;
      while (j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]))) ++j;
      const std::string cmd = s.substr(i + 1, j - i - 1);
      if (cmd == "cite" || cmd == "ref" || cmd == "label" || cmd == "citep" || cmd == "citet" || cmd == "eqref") {
        const auto close = s.find('}', j);
        i = close == std::string::npos ? s.size() : close;
        continue;
      }
      if (j == i + 1 && j < s.size()) out += s[j], j = i + 2;  // \& \_ \#
      i = j - 1;
      continue;
    }
    if (s[i] == '{' || s[i] == '}' || s[i] == '$') continue;
    out += s[i];
  }
  return trim(out);
}

bool markdown_separator(const std::vector<std::string>& cells) {
  bool any = false;
  for (const auto& c : cells) {
    if (c.empty()) continue;
    if (c.find_first_not_of("-:") != std::string::npos) return false;
    any = true;
  }
  return any;
}

std::vector<std::string> plain_cells(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size()) {
      if (s[j] == '\t') break;
      if (s[j] == ' ' && j + 1 < s.size() && s[j + 1] == ' ') break;
      ++j;
    }
    if (j > i) out.push_back(trim(s.substr(i, j - i)));
    i = j;
  }
  return out;
}

}  // namespace

load_result<document> load_text_source(std::string_view raw_text, const std::string& format, const std::string& name) {
  if (raw_text.size() > max_paper_bytes)
    return tl::unexpected(load_error{"paper '" + name + "': more than 64 MiB of text; give the paper alone"});
  if (raw_text.find('\0') != std::string_view::npos)
    return tl::unexpected(load_error{"paper '" + name +
                                     "': binary data in a text source (a NUL byte); give a PDF (starting with "
                                     "%PDF-) or a UTF-8 .txt/.md/.tex file"});
  const std::string repaired = detail::valid_utf8(raw_text);  // invalid bytes become U+FFFD
  const std::string_view text = repaired;
  document doc;
  doc.name = name;
  doc.format = format;
  doc.reader = format + " lines";
  int page = 1;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = std::min(text.find_first_of("\n\f", start), text.size());
    std::string raw(text.substr(start, nl - start));
    start = nl + 1;
    const int line_page = page;
    if (nl < text.size() && text[nl] == '\f') ++page;  // a form feed ends the line and the page
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    line l;
    l.page = line_page;
    std::vector<std::string> cells;
    if (format == "markdown" && trim(raw).rfind('|', 0) == 0) {
      std::string body = trim(raw);
      body = body.substr(1);
      if (!body.empty() && body.back() == '|') body.pop_back();
      cells = split_on(body, '|');
      if (markdown_separator(cells)) continue;
      l.table_row = true;
    } else if (format == "latex" && raw.find('&') != std::string::npos && raw.find("\\\\") != std::string::npos) {
      std::string row = raw.substr(0, raw.find("\\\\"));
      for (auto& c : split_on(row, '&')) cells.push_back(latex_plain(c));
      l.table_row = true;
    } else if (format == "latex") {
      const std::string plain = latex_plain(raw);
      if (plain.empty()) continue;
      cells.push_back(plain);
    } else if (format == "text") {
      cells = plain_cells(raw);
    } else {
      const std::string t = trim(raw);
      if (!t.empty()) cells.push_back(t);
    }
    if (cells.empty()) continue;
    for (std::size_t i = 0; i < cells.size(); ++i)
      l.cells.push_back(cell{cells[i], static_cast<double>(i), static_cast<double>(i)});
    doc.lines.push_back(std::move(l));
    if (nl == text.size()) break;
  }
  doc.pages = page;
  if (doc.lines.empty())
    return tl::unexpected(load_error{"paper '" + name + "': the " + format + " source has no text"});
  return doc;
}

}  // namespace r2r::paper
