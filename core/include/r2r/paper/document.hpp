// SPDX-License-Identifier: MIT
// A paper as lines of cells with page numbers: the input of result extraction (candidates.hpp).
// PDFs are read in-process through poppler's C++ API (text and word boxes); text, Markdown and
// LaTeX sources are read line by line (their tables: Markdown pipes, LaTeX `&` ... `\\` rows).
// Contracts:
//   - loading never crashes on hostile bytes: every failure is a `load_error` whose message says
//     what was expected, what was found and what to do (encrypted, image-only, truncated, damaged,
//     binary, too large);
//   - page numbers are 1-based; a text source is one page unless it contains form feeds;
//   - cells of a PDF line are words merged while the gap between them is smaller than the font's
//     height; x coordinates are PDF points (text sources: the cell's index).
// THREADING: the functions are reentrant; poppler's error callback is set once per process to a
// function that discards its messages (loading reports problems through load_error instead).
#pragma once

#include <tl/expected.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::paper {

struct cell {
  std::string text;  // UTF-8, words joined by single spaces
  double x0 = 0, x1 = 0;
};

struct line {
  int page = 1;
  std::vector<cell> cells;
  bool table_row = false;    // a source row of a Markdown/LaTeX table (cells split by the source's syntax)
  std::string text() const;  // the cells joined by single spaces
};

struct document {
  std::string name;    // the file's name as given (no directories), for the plan
  std::string format;  // pdf, text, markdown, latex
  std::string reader;  // what read it: "poppler-cpp 22.02.0 text boxes", "markdown lines"
  int pages = 0;
  std::vector<line> lines;  // in reading order, page by page
};

struct load_error {
  std::string message;
};

template <class T>
using load_result = tl::expected<T, load_error>;

/// Largest file `load_paper` reads (64 MiB) and the most pages it lays out (500).
inline constexpr std::size_t max_paper_bytes = 64u << 20;
inline constexpr int max_pages = 500;

/// Reads `path`: a PDF when the bytes start with `%PDF-`, else a text source by extension (.md and
/// .markdown: markdown; .tex: latex; anything else: text). A URL is refused with what to do.
load_result<document> load_paper(const std::filesystem::path& path);

/// A PDF from memory. `name` is recorded in the document.
load_result<document> load_pdf(std::string_view bytes, const std::string& name);

/// A text source from memory; `format` is text, markdown or latex.
load_result<document> load_text_source(std::string_view text, const std::string& format, const std::string& name);

}  // namespace r2r::paper
