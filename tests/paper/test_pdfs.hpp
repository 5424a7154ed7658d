// SPDX-License-Identifier: MIT
// PDFs the paper tests write with cairo (DejaVu Sans through fontconfig): text at given positions
// on A4-sized pages, so the tests know exactly which table, row and page each number is on.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::test {

struct pdf_text {
  double x, y;  // points from the top-left corner (y: the baseline)
  std::string text;
  double size = 10;
};
using pdf_page = std::vector<pdf_text>;

/// Writes `pages` as a PDF; an empty page gets only a grey rectangle (no text layer).
void write_pdf(const std::filesystem::path& path, const std::vector<pdf_page>& pages);

/// A table at (x, y): one line per row, cell i at x + columns[i].
pdf_page table_at(double x, double y, const std::vector<double>& columns,
                  const std::vector<std::vector<std::string>>& rows, double size = 10);

/// Lines of running text from (x, y), 14 points apart.
pdf_page text_at(double x, double y, const std::vector<std::string>& lines, double size = 10);

/// The fixtures of issue 21, page by page (see the .cpp for their exact content):
///   results table: p.1 prose, p.2 "Table 2: Results on CIFAR-10 test set." Model | Params (M) |
///                  Top-1 Acc. (%) with rows ResNet-18 93.0 and ResNet-50 94.6;
///   sentence:      p.1 "... our ResNet-50 achieves 76.1% top-1 accuracy on ImageNet ..." ;
///   two models:    p.1 "Table 1: BLEU on WMT14 English-German." Model | BLEU | Speedup with rows
///                  Transformer-Base 27.3 1.0× and Transformer-Big 28.4 0.6×.
void write_results_table_pdf(const std::filesystem::path& path);
void write_sentence_pdf(const std::filesystem::path& path);
void write_two_model_pdf(const std::filesystem::path& path);
/// Two pages of drawings only.
void write_image_only_pdf(const std::filesystem::path& path);

}  // namespace r2r::test
