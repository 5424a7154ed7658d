// SPDX-License-Identifier: MIT
// Tables from layout (candidates.hpp): a header line of two or more non-numeric cells followed by
// rows of a label and numbers. Columns are matched by index when a row has as many cells as the
// header (or one more: the header's empty corner), else, in PDFs, by the nearest header cell.
#include "paper_internal.hpp"
#include "utf8.hpp"

#include <r2r/paper/candidates.hpp>
#include <r2r/paper/metrics.hpp>

#include <cmath>
#include <regex>

namespace r2r::paper {
namespace {

bool numeric(const cell& c) {
  return parse_number_cell(c.text).has_value();
}

bool header_line(const line& l, bool pdf) {
  if (l.cells.size() < 2 || l.cells.size() > 20) return false;
  if (!pdf && !l.table_row) return false;
  int named = 0;
  for (std::size_t i = 0; i < l.cells.size(); ++i) {
    if (numeric(l.cells[i])) return false;
    if (!l.cells[i].text.empty()) ++named;
  }
  return named >= 2;
}

// The row's cells placed under the header's columns; empty when the line is not a data row.
std::vector<std::string> data_row(const line& l, const std::vector<cell>& header, bool pdf) {
  if (l.cells.size() < 2 || (!pdf && !l.table_row)) return {};
  int numbers = 0;
  for (std::size_t i = 1; i < l.cells.size(); ++i) numbers += numeric(l.cells[i]) ? 1 : 0;
  if (numbers == 0) return {};
  std::vector<std::string> out(header.size());
  if (l.cells.size() == header.size()) {
    for (std::size_t i = 0; i < l.cells.size(); ++i) out[i] = l.cells[i].text;
    return out;
  }
  if (!pdf) return {};
  // By position: the first cell is the label; each other cell goes under the nearest header cell.
  out[0] = l.cells[0].text;
  for (std::size_t i = 1; i < l.cells.size(); ++i) {
    const double mid = (l.cells[i].x0 + l.cells[i].x1) / 2;
    std::size_t best = 0;
    double best_d = 1e300;
    for (std::size_t h = 1; h < header.size(); ++h) {
      const double d = std::fabs((header[h].x0 + header[h].x1) / 2 - mid);
      if (d < best_d) best_d = d, best = h;
    }
    if (best == 0 || !out[best].empty()) return {};  // two cells under one header: not this table
    out[best] = l.cells[i].text;
  }
  return out;
}

std::pair<std::string, std::string> caption_near(const std::vector<line>& lines, std::size_t first, std::size_t last) {
  static const std::regex caption(R"(^\s*Table\s*([0-9]+|[IVX]+)?\s*[:.])", std::regex::icase);
  std::pair<std::string, std::string> best;
  std::size_t best_d = 99;
  for (std::size_t i = first >= 10 ? first - 10 : 0; i < lines.size() && i <= last + 10; ++i) {
    if (lines[i].page != lines[first].page || (i >= first && i <= last)) continue;
    std::string t = lines[i].text();
    t = detail::clip_utf8(t, 400);
    std::smatch m;
    if (!std::regex_search(t, m, caption)) continue;
    const std::size_t d = i < first ? first - i : i - last;
    if (d >= best_d) continue;
    best_d = d;
    best = {m[1].matched ? "Table " + m[1].str() : "", t};
  }
  return best;
}

}  // namespace

std::vector<table> extract_tables(const document& doc) {
  std::vector<table> out;
  const bool pdf = doc.format == "pdf";
  const auto& lines = doc.lines;
  int unnamed = 0;
  for (std::size_t i = 0; i < lines.size() && out.size() < 200; ++i) {
    if (!header_line(lines[i], pdf)) continue;
    std::vector<cell> header = lines[i].cells;
    std::size_t j = i + 1;
    std::vector<std::vector<std::string>> rows;
    for (; j < lines.size() && lines[j].page == lines[i].page && rows.size() < 100; ++j) {
      auto row = data_row(lines[j], header, pdf);
      if (row.empty() && !pdf && lines[j].cells.size() == header.size() + 1) {
        // The header has no corner cell: shift it right once, then read the row by index.
        header.insert(header.begin(), cell{"", header.front().x0, header.front().x0});
        row = data_row(lines[j], header, pdf);
      }
      if (row.empty()) break;
      rows.push_back(std::move(row));
    }
    if (rows.empty()) continue;
    table t;
    t.page = lines[i].page;
    for (const auto& c : header) t.header.push_back(c.text);
    t.rows = std::move(rows);
    t.first_line = i;
    t.end_line = j;
    auto [label, caption] = caption_near(lines, i, j - 1);
    t.caption = caption;
    t.label = label.empty() ? "table " + std::to_string(++unnamed) + " on page " + std::to_string(t.page) : label;
    out.push_back(std::move(t));
    i = j - 1;
  }
  return out;
}

namespace detail {

std::string dataset_in(const std::string& text) {
  static const std::regex on(R"(\bon (?:the )?([A-Z0-9][A-Za-z0-9'_.\-]*(?: [A-Z0-9][A-Za-z0-9'_.\-]*)?))");
  std::smatch m;
  const std::string t = clip_utf8(text, 400);
  if (!std::regex_search(t, m, on)) return "";
  std::string d = m[1].str();
  while (!d.empty() && (d.back() == '.' || d.back() == ',')) d.pop_back();
  return d;
}

std::string split_in(const std::string& text) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.find("test set") != std::string::npos || t.find("test split") != std::string::npos) return "test";
  if (t.find("validation") != std::string::npos || t.find("val set") != std::string::npos ||
      t.find("dev set") != std::string::npos)
    return "val";
  return "";
}

void fill_class(candidate& c) {
  const auto cls = classify_metric(c.metric);
  c.metric_class = cls.name;
  c.direction = cls.direction;
  c.tolerance_kind = cls.tolerance_kind;
  c.tolerance = cls.tolerance;
}

std::vector<candidate> table_candidates(const table& t) {
  std::vector<candidate> out;
  const auto caption_metric = recognise_metric(t.caption);
  const std::string caption_dataset = dataset_in(t.caption);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    std::string row_text;
    for (const auto& c : row) row_text += (row_text.empty() ? "" : " | ") + c;
    for (std::size_t col = 1; col < row.size() && col < t.header.size(); ++col) {
      const auto n = parse_number_cell(row[col]);
      if (!n) continue;
      candidate c;
      c.page = t.page;
      c.source = "table";
      c.table = t.label;
      c.row = static_cast<int>(r) + 1;
      c.column = t.header[col];
      c.text = clip_utf8(row_text, 300);
      c.value = n->value;
      c.model = row[0];
      c.dataset = caption_dataset;
      c.split = split_in(t.caption + " " + t.header[col]);
      if (const auto m = recognise_metric(t.header[col])) {
        c.metric = m->metric;
        c.qualifier = m->qualifier;
        c.unit = !n->unit.empty() ? n->unit : m->unit;
      } else if (caption_metric) {
        // A dataset column ("CIFAR-10 | ImageNet") under a caption naming the metric.
        c.metric = caption_metric->metric;
        c.qualifier = caption_metric->qualifier;
        c.unit = !n->unit.empty() ? n->unit : caption_metric->unit;
        c.dataset = t.header[col];
      } else {
        continue;  // a number under a header that names no metric (a size, a year, a count)
      }
      if (c.split.empty() && (c.qualifier == "test" || c.qualifier == "val" || c.qualifier == "train"))
        c.split = c.qualifier;
      fill_class(c);
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace detail
}  // namespace r2r::paper
