// SPDX-License-Identifier: MIT
// PDFs through poppler-cpp: word boxes per page, grouped into lines by their vertical centre and
// into cells by the horizontal gap between words. See document.hpp for the contracts.
#include <r2r/paper/document.hpp>

#include "utf8.hpp"

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>
#include <poppler-version.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>

namespace r2r::paper {
namespace {

void discard_poppler_message(const std::string&, void*) {}

void silence_poppler() {
  static std::once_flag once;
  std::call_once(once, [] { poppler::set_debug_error_function(&discard_poppler_message, nullptr); });
}

struct word {
  std::string text;
  double x0, x1, yc, h;
  bool space_after;
};

std::string utf8(const poppler::ustring& s) {
  const auto bytes = s.to_utf8();
  return std::string(bytes.begin(), bytes.end());
}

// Words of one page into lines (top to bottom), each line into cells (left to right).
std::vector<line> lay_out(std::vector<word> words, int page_no) {
  std::vector<line> out;
  std::sort(words.begin(), words.end(), [](const word& a, const word& b) { return a.yc < b.yc; });
  std::vector<std::vector<word>> rows;
  double row_yc = 0, row_h = 0;
  for (auto& w : words) {
    if (rows.empty() || std::fabs(w.yc - row_yc) > 0.5 * std::max(std::min(row_h, w.h), 1.0)) {
      rows.emplace_back();
      row_yc = w.yc;
      row_h = w.h;
    }
    rows.back().push_back(std::move(w));
  }
  for (auto& r : rows) {
    std::sort(r.begin(), r.end(), [](const word& a, const word& b) { return a.x0 < b.x0; });
    line l;
    l.page = page_no;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const bool join = i > 0 && r[i].x0 - r[i - 1].x1 < 0.75 * std::max(r[i].h, r[i - 1].h);
      if (!join) {
        l.cells.push_back(cell{r[i].text, r[i].x0, r[i].x1});
        continue;
      }
      cell& c = l.cells.back();
      // Glyph runs split without a space ("76" "." "1") join without one.
      c.text += (r[i - 1].space_after || r[i].x0 - r[i - 1].x1 > 0.15 * r[i].h ? " " : "") + r[i].text;
      c.x1 = std::max(c.x1, r[i].x1);
    }
    if (!l.cells.empty()) out.push_back(std::move(l));
  }
  return out;
}

bool has_eof_marker(std::string_view bytes) {
  const std::size_t tail = std::min<std::size_t>(bytes.size(), 2048);
  return bytes.substr(bytes.size() - tail).find("%%EOF") != std::string_view::npos;
}

}  // namespace

load_result<document> load_pdf(std::string_view bytes, const std::string& name) {
  silence_poppler();
  const auto fail = [&](const std::string& why) { return tl::unexpected(load_error{"paper '" + name + "': " + why}); };
  if (bytes.size() > max_paper_bytes)
    return fail("the PDF is " + std::to_string(bytes.size() >> 20) +
                " MiB, more than the 64 MiB read; give a text "
                "or LaTeX source of the paper instead");
  if (bytes.substr(0, std::min<std::size_t>(bytes.size(), 1024)).find("%PDF-") == std::string_view::npos)
    return fail("not a PDF: no %PDF- header in the first 1024 bytes; give a PDF, or a .txt/.md/.tex source");
  if (!has_eof_marker(bytes))
    return fail(
        "the PDF is truncated: it does not end with a %%EOF marker (the file was cut short); download it "
        "again or give a text or LaTeX source");
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return fail("the PDF is too large");
  // load_from_raw_data does not copy: `bytes` outlives `doc` (both end in this function).
  std::unique_ptr<poppler::document> doc(
      poppler::document::load_from_raw_data(bytes.data(), static_cast<int>(bytes.size())));
  if (!doc)
    return fail(
        "poppler cannot parse the PDF (damaged cross-reference table or objects); repair it (qpdf "
        "--replace-input) or give a text or LaTeX source");
  if (doc->is_locked())
    return fail(
        "the PDF is encrypted and needs a password to read its text; give an unencrypted copy (qpdf "
        "--decrypt) or a text or LaTeX source");
  document out;
  out.name = name;
  out.format = "pdf";
  out.reader = "poppler-cpp " + poppler::version_string() + " text boxes";
  out.pages = doc->pages();
  if (out.pages <= 0) return fail("the PDF has no pages");
  if (out.pages > max_pages)
    return fail("the PDF has " + std::to_string(out.pages) + " pages, more than the " + std::to_string(max_pages) +
                " read; give the paper without its supplement");
  for (int i = 0; i < out.pages; ++i) {
    std::unique_ptr<poppler::page> p(doc->create_page(i));
    if (!p) continue;
    std::vector<word> words;
    for (const auto& box : p->text_list()) {
      std::string text = detail::valid_utf8(utf8(box.text()));
      if (text.empty()) continue;
      const auto r = box.bbox();
      if (!std::isfinite(r.x()) || !std::isfinite(r.y()) || !std::isfinite(r.width()) || !std::isfinite(r.height()))
        continue;
      words.push_back(word{std::move(text), r.x(), r.x() + r.width(), r.y() + r.height() / 2, std::fabs(r.height()),
                           box.has_space_after()});
    }
    auto lines = lay_out(std::move(words), i + 1);
    for (auto& l : lines) out.lines.push_back(std::move(l));
  }
  if (out.lines.empty())
    return fail("the PDF has no text layer (" + std::to_string(out.pages) +
                " page(s) of images only, e.g. a scan); give a PDF with text, or a text or LaTeX source of the paper");
  return out;
}

}  // namespace r2r::paper
