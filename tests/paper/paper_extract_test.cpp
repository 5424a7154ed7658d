// SPDX-License-Identifier: MIT
// The paper library on the PDFs of test_pdfs.hpp (written here with cairo), on text sources, and
// on bad input: encrypted, image-only, truncated, not a PDF.
#include "../unit/test_support.hpp"
#include "test_pdfs.hpp"

#include <r2r/paper/candidates.hpp>
#include <r2r/paper/document.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace {

namespace fs = std::filesystem;
namespace paper = r2r::paper;
using ::testing::HasSubstr;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class PaperExtract : public ::testing::Test {
 protected:
  paper::document load(const fs::path& p) {
    auto d = paper::load_paper(p);
    EXPECT_TRUE(d.has_value()) << (d ? "" : d.error().message);
    return d ? *d : paper::document{};
  }
  std::string load_error(const fs::path& p) {
    auto d = paper::load_paper(p);
    EXPECT_FALSE(d.has_value()) << p;
    return d ? "" : d.error().message;
  }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(tmp.path() / name, std::ios::binary) << text;
    return tmp.path() / name;
  }
  r2r::test::temp_dir tmp;
};

TEST_F(PaperExtract, ResultsTableKeepsPageRowsColumnsAndMetricClass) {
  const fs::path pdf = tmp.path() / "table.pdf";
  r2r::test::write_results_table_pdf(pdf);
  const auto doc = load(pdf);
  EXPECT_EQ(doc.format, "pdf");
  EXPECT_EQ(doc.pages, 2);
  EXPECT_THAT(doc.reader, HasSubstr("poppler-cpp"));
  const auto tables = paper::extract_tables(doc);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].page, 2);
  EXPECT_EQ(tables[0].label, "Table 2");
  EXPECT_EQ(tables[0].header, (std::vector<std::string>{"Model", "Params (M)", "Top-1 Acc. (%)"}));
  ASSERT_EQ(tables[0].rows.size(), 2u);
  EXPECT_EQ(tables[0].rows[1], (std::vector<std::string>{"ResNet-50", "23.5", "94.6"}));

  const auto c = paper::extract_candidates(doc);
  ASSERT_EQ(c.size(), 2u) << "Params (M) names no metric; the two accuracies are the candidates";
  EXPECT_EQ(c[1].page, 2);
  EXPECT_EQ(c[1].source, "table");
  EXPECT_EQ(c[1].row, 2);
  EXPECT_EQ(c[1].model, "ResNet-50");
  EXPECT_EQ(c[1].metric, "accuracy");
  EXPECT_EQ(c[1].qualifier, "top-1");
  EXPECT_DOUBLE_EQ(c[1].value, 94.6);
  EXPECT_EQ(c[1].unit, "%");
  EXPECT_EQ(c[1].dataset, "CIFAR-10");
  EXPECT_EQ(c[1].split, "test");
  EXPECT_EQ(c[1].direction, "higher");
  EXPECT_EQ(c[1].metric_class, "accuracy");
  EXPECT_EQ(c[1].tolerance_kind, "absolute");
  EXPECT_DOUBLE_EQ(c[1].tolerance, 3.0);
  EXPECT_EQ(paper::describe(c[0]), "p.2 Table 2 row 1 (ResNet-18, Top-1 Acc. (%)): top-1 accuracy 93% on CIFAR-10");
}

TEST_F(PaperExtract, SentenceResultWithModelAndDataset) {
  const fs::path pdf = tmp.path() / "sentence.pdf";
  r2r::test::write_sentence_pdf(pdf);
  const auto c = paper::extract_candidates(load(pdf));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].source, "sentence");
  EXPECT_EQ(c[0].page, 1);
  EXPECT_EQ(c[0].metric, "accuracy");
  EXPECT_EQ(c[0].qualifier, "top-1");
  EXPECT_DOUBLE_EQ(c[0].value, 76.1);
  EXPECT_EQ(c[0].unit, "%");
  EXPECT_EQ(c[0].dataset, "ImageNet");
  EXPECT_EQ(c[0].model, "ResNet-50");
  EXPECT_THAT(c[0].text, HasSubstr("achieves 76.1% top-1 accuracy on ImageNet"));  // across the line break
}

TEST_F(PaperExtract, TwoModelTableGivesEveryCellWithItsDirection) {
  const fs::path pdf = tmp.path() / "two.pdf";
  r2r::test::write_two_model_pdf(pdf);
  const auto c = paper::extract_candidates(load(pdf));
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].metric, "bleu");
  EXPECT_EQ(c[0].model, "Transformer-Base");
  EXPECT_EQ(c[0].dataset, "WMT14 English-German");
  EXPECT_EQ(c[3].metric, "speedup");
  EXPECT_EQ(c[3].model, "Transformer-Big");
  EXPECT_DOUBLE_EQ(c[3].value, 0.6);
  EXPECT_EQ(c[3].unit, "x");
  EXPECT_EQ(c[3].metric_class, "ratio");
  EXPECT_DOUBLE_EQ(c[3].tolerance, 0.15);
}

TEST_F(PaperExtract, MarkdownLatexAndTextSources) {
  const auto md =
      paper::extract_candidates(load(write("p.md",
                                           "# Results\n\nTable 3: Results on SST-2.\n\n"
                                           "| Model | Acc (%) | Loss |\n|---|---:|---:|\n"
                                           "| BERT-base | 92.7 | 0.21 |\n| BERT-large | **94.9** | 0.18 |\n")));
  ASSERT_EQ(md.size(), 4u);
  EXPECT_EQ(md[2].model, "BERT-large");
  EXPECT_DOUBLE_EQ(md[2].value, 94.9);
  EXPECT_EQ(md[2].table, "Table 3");
  EXPECT_EQ(md[2].dataset, "SST-2");
  EXPECT_EQ(md[3].metric, "loss");
  EXPECT_EQ(md[3].direction, "lower");

  const auto tex = paper::extract_candidates(
      load(write("p.tex",
                 "\\begin{table}\n\\caption{Perplexity on WikiText-103.}\n\\begin{tabular}{lc}\n\\toprule\n"
                 "Model & PPL \\\\\n\\midrule\nGPT-small & 29.4 \\\\\n\\bottomrule\n\\end{tabular}\n\\end{table}\n"
                 "We obtain a speedup of 2.1$\\times$ over the baseline.\n")));
  ASSERT_EQ(tex.size(), 2u);
  EXPECT_EQ(tex[0].metric, "perplexity");
  EXPECT_EQ(tex[0].model, "GPT-small");
  EXPECT_EQ(tex[0].dataset, "WikiText-103");
  EXPECT_EQ(tex[1].metric, "speedup");
  EXPECT_DOUBLE_EQ(tex[1].value, 2.1);

  const auto txt = paper::extract_candidates(load(write("p.txt",
                                                        "Our system reaches a BLEU of 41.0 on WMT14.\f"
                                                        "Page two reports 3.2x speedup.\n")));
  ASSERT_EQ(txt.size(), 2u);
  EXPECT_EQ(txt[0].metric, "bleu");
  EXPECT_EQ(txt[0].page, 1);
  EXPECT_EQ(txt[1].metric, "speedup");
  EXPECT_EQ(txt[1].page, 2);
}

TEST_F(PaperExtract, InvalidUtf8IsRepairedSoThePlanCanBeWritten) {
  // The fuzzer's finding (tests/data/fuzz-regressions/paper_pdf-invalid-utf8.bin): a caption with
  // bytes that are not UTF-8 made the candidate's JSON throw when the plan was written.
  const auto input = r2r::test::env_path("R2R_SOURCE_DIR") / "tests/data/fuzz-regressions/paper_pdf-invalid-utf8.bin";
  const auto tex = paper::extract_candidates(load(write("bad.tex", slurp(input))));
  ASSERT_FALSE(tex.empty());
  for (const auto& c : tex) EXPECT_NO_THROW((void)paper::to_json(c).dump()) << paper::describe(c);
  // A row longer than the 300 bytes kept, of two-byte characters, is cut between characters.
  std::string long_label;
  for (int i = 0; i < 200; ++i) long_label += "\xC3\xA9";
  const auto md =
      paper::extract_candidates(load(write("long.md", "| Model | Acc |\n|---|---|\n| x" + long_label + " | 76.1 |\n")));
  ASSERT_EQ(md.size(), 1u);
  EXPECT_LE(md[0].text.size(), 300u);
  EXPECT_NO_THROW((void)paper::to_json(md[0]).dump());
}

TEST_F(PaperExtract, EncryptedPdfIsAClearError) {
  if (r2r::test::run_process("command -v qpdf").exit_code != 0)
    GTEST_SKIP() << "qpdf (scripts/bootstrap.sh) is missing";
  const fs::path plain = tmp.path() / "plain.pdf", locked = tmp.path() / "locked.pdf";
  r2r::test::write_results_table_pdf(plain);
  const auto r = r2r::test::run_process("qpdf --encrypt user-secret owner-secret 256 -- '" + plain.string() + "' '" +
                                        locked.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto why = load_error(locked);
  EXPECT_THAT(why, HasSubstr("encrypted"));
  EXPECT_THAT(why, HasSubstr("qpdf --decrypt"));
}

TEST_F(PaperExtract, ImageOnlyPdfIsAClearError) {
  const fs::path pdf = tmp.path() / "scan.pdf";
  r2r::test::write_image_only_pdf(pdf);
  EXPECT_THAT(load_error(pdf), HasSubstr("no text layer (2 page(s) of images only"));
}

TEST_F(PaperExtract, TruncatedAndDamagedPdfsAreClearErrors) {
  const fs::path pdf = tmp.path() / "full.pdf";
  r2r::test::write_results_table_pdf(pdf);
  const std::string bytes = slurp(pdf);
  for (std::size_t cut : {bytes.size() / 2, bytes.size() - 8, std::size_t{9}}) {
    SCOPED_TRACE(cut);
    EXPECT_THAT(load_error(write("cut.pdf", bytes.substr(0, cut))), HasSubstr("truncated"));
  }
  EXPECT_THAT(load_error(write("noise.pdf", "%PDF-1.7\n" + std::string(4000, 'q') + "\n%%EOF\n")),
              HasSubstr("paper 'noise.pdf'"));
  EXPECT_THAT(load_error(write("text.pdf", "just words")), HasSubstr("not a PDF: no %PDF- header"));
  EXPECT_THAT(load_error(write("bin.txt", std::string("ab\0cd", 5))), HasSubstr("NUL byte"));
  EXPECT_THAT(load_error("https://arxiv.org/pdf/1512.03385"), HasSubstr("download the paper"));
  EXPECT_THAT(load_error(tmp.path() / "missing.pdf"), HasSubstr("not a readable regular file"));
}

}  // namespace
