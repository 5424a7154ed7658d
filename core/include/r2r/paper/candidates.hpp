// SPDX-License-Identifier: MIT
// Reported results of a paper, found deterministically: tables (a header line of metric or
// dataset names over rows of a label and numbers, from the cells' layout) and result sentences
// ("we achieve X on Y", "X% top-1", "BLEU of X", "speedup of X×"). Every candidate keeps where it
// was printed (page, table and row, or the sentence), what it measures and to whom it belongs.
// Pure functions over a document (document.hpp); the same document gives the same candidates.
#pragma once

#include <r2r/paper/document.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace r2r::paper {

struct table {
  int page = 1;
  std::string label;    // "Table 2" when a caption names it, else "table N on page P"
  std::string caption;  // the caption line ("" none)
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each as wide as `header`; "" where a row has no cell
  std::size_t first_line = 0, end_line = 0;    // the header and rows are document.lines[first_line, end_line)
};

struct candidate {
  int page = 1;
  std::string source;  // table, sentence
  std::string table;   // the table's label ("" for sentences)
  int row = 0;         // 1-based data row of the table (0 for sentences)
  std::string column;  // the header the value sits under ("" for sentences)
  std::string text;    // the row as printed, or the sentence (at most 300 characters)
  std::string metric;  // canonical name (metrics.hpp)
  std::string qualifier;
  double value = 0;
  std::string unit;  // %, x, ms or ""
  std::string direction, metric_class, tolerance_kind;
  double tolerance = 0;
  std::string dataset;  // "" when the paper does not say near the number
  std::string split;    // test, val, train or ""
  std::string model;    // the row label or the sentence's subject ("" unknown)
};

std::vector<table> extract_tables(const document& doc);

/// All candidates: table cells first (page order), then sentences. At most 2000.
std::vector<candidate> extract_candidates(const document& doc);

nlohmann::json to_json(const candidate& c);
/// "p.3 Table 2 row 2 (ResNet-50, Top-1 Acc. (%)): accuracy 76.1%" / "p.2 sentence: bleu 28.4".
std::string describe(const candidate& c);

}  // namespace r2r::paper
