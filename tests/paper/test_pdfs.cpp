// SPDX-License-Identifier: MIT
#include "test_pdfs.hpp"

#include <cairo-pdf.h>
#include <cairo.h>

#include <stdexcept>

namespace r2r::test {

void write_pdf(const std::filesystem::path& path, const std::vector<pdf_page>& pages) {
  cairo_surface_t* surface = cairo_pdf_surface_create(path.c_str(), 595, 842);
  cairo_t* cr = cairo_create(surface);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  for (const auto& page : pages) {
    if (page.empty()) {
      cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
      cairo_rectangle(cr, 50, 50, 400, 300);
      cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (const auto& t : page) {
      cairo_set_font_size(cr, t.size);
      cairo_move_to(cr, t.x, t.y);
      cairo_show_text(cr, t.text.c_str());
    }
    cairo_show_page(cr);
  }
  cairo_destroy(cr);
  cairo_surface_finish(surface);
  const auto status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error("cairo could not write " + path.string() + ": " + cairo_status_to_string(status));
}

pdf_page table_at(double x, double y, const std::vector<double>& columns,
                  const std::vector<std::vector<std::string>>& rows, double size) {
  pdf_page out;
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < rows[r].size() && c < columns.size(); ++c)
      out.push_back({x + columns[c], y + static_cast<double>(r) * (size + 6), rows[r][c], size});
  return out;
}

pdf_page text_at(double x, double y, const std::vector<std::string>& lines, double size) {
  pdf_page out;
  for (std::size_t i = 0; i < lines.size(); ++i) out.push_back({x, y + 14.0 * static_cast<double>(i), lines[i], size});
  return out;
}

namespace {
pdf_page join(pdf_page a, const pdf_page& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace

void write_results_table_pdf(const std::filesystem::path& path) {
  const pdf_page p1 = text_at(72, 90,
                              {"Residual Networks on Small Images", "",
                               "We train residual networks of two depths on CIFAR-10 with the same schedule",
                               "and report their accuracy on the test set in Table 2."});
  const pdf_page p2 = join(
      text_at(72, 90, {"Table 2: Results on CIFAR-10 test set."}),
      table_at(
          72, 120, {0, 150, 260},
          {{"Model", "Params (M)", "Top-1 Acc. (%)"}, {"ResNet-18", "11.2", "93.0"}, {"ResNet-50", "23.5", "94.6"}}));
  write_pdf(path, {p1, join(p2, text_at(72, 220, {"Deeper networks help on this data set."}))});
}

void write_sentence_pdf(const std::filesystem::path& path) {
  write_pdf(path, {text_at(72, 90,
                           {"Efficient Training of Wide Networks", "",
                            "We study the training of convolutional networks at scale. With the proposed",
                            "schedule, our ResNet-50 achieves 76.1% top-1 accuracy on ImageNet in 90",
                            "epochs. Training takes eight hours on one node."})});
}

void write_two_model_pdf(const std::filesystem::path& path) {
  write_pdf(path, {join(text_at(72, 90, {"Attention for Translation", "", "Table 1: BLEU on WMT14 English-German."}),
                        table_at(72, 140, {0, 160, 240},
                                 {{"Model", "BLEU", "Speedup"},
                                  {"Transformer-Base", "27.3", "1.0×"},
                                  {"Transformer-Big", "28.4", "0.6×"}}))});
}

void write_image_only_pdf(const std::filesystem::path& path) {
  write_pdf(path, {pdf_page{}, pdf_page{}});
}

}  // namespace r2r::test
