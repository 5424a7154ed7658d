// SPDX-License-Identifier: MIT
// Tying candidates to the workload: a target only when the model/dataset names are in the command,
// its config or the README run and exactly one result is tied; a ranking's pick only when tied.
#include "../unit/test_support.hpp"
#include "test_pdfs.hpp"

#include <r2r/paper/candidates.hpp>
#include <r2r/paper/target.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace {

namespace fs = std::filesystem;
namespace paper = r2r::paper;
using nlohmann::json;
using ::testing::HasSubstr;

class PaperTarget : public ::testing::Test {
 protected:
  std::vector<paper::candidate> candidates_of(void (*writer)(const fs::path&)) {
    const fs::path pdf = tmp.path() / "paper.pdf";
    writer(pdf);
    auto doc = paper::load_paper(pdf);
    EXPECT_TRUE(doc.has_value());
    return doc ? paper::extract_candidates(*doc) : std::vector<paper::candidate>{};
  }
  paper::tie_context context(const std::string& command) {
    return paper::gather_context(repo,
                                 json{{"command", command}, {"source", "readme"}, {"file", "README.md"}, {"line", 3}});
  }
  void put(const std::string& rel, const std::string& text) {
    fs::create_directories((repo / rel).parent_path());
    std::ofstream(repo / rel) << text;
  }
  void SetUp() override {
    repo = tmp.path() / "repo";
    fs::create_directories(repo);
    put("README.md", "# Demo\n\n`python train.py`\n");
  }
  r2r::test::temp_dir tmp;
  fs::path repo;
};

TEST_F(PaperTarget, TableRowTiedByTheCommandsModelAndDataset) {
  const auto c = candidates_of(&r2r::test::write_results_table_pdf);
  const auto choice = paper::choose_target(c, context("python train.py --arch resnet50 --dataset cifar10"));
  ASSERT_TRUE(choice.index.has_value()) << choice.note;
  EXPECT_EQ(c[*choice.index].row, 2);
  EXPECT_DOUBLE_EQ(c[*choice.index].value, 94.6);
  EXPECT_THAT(choice.note, HasSubstr("model 'ResNet-50' in the command"));
  EXPECT_THAT(choice.note, HasSubstr("p.2 Table 2 row 2"));
}

TEST_F(PaperTarget, TheConfigFileTheCommandNamesTies) {
  put("configs/c10.yaml", "model:\n  arch: ResNet-50\ndata:\n  name: CIFAR-10\n");
  const auto c = candidates_of(&r2r::test::write_results_table_pdf);
  const auto choice = paper::choose_target(c, context("python train.py --config configs/c10.yaml"));
  ASSERT_TRUE(choice.index.has_value()) << choice.note;
  EXPECT_EQ(c[*choice.index].model, "ResNet-50");
  EXPECT_THAT(choice.note, HasSubstr("in configs/c10.yaml"));
}

TEST_F(PaperTarget, AConfigLinkOutOfTheRepositoryIsNotRead) {
  // The attack: a config that is a link to a file outside naming the model, to force a tie.
  std::ofstream(tmp.path() / "outside.yaml") << "arch: resnet50\ndataset: cifar10\n";
  fs::create_symlink(tmp.path() / "outside.yaml", repo / "c.yaml");
  const auto c = candidates_of(&r2r::test::write_results_table_pdf);
  EXPECT_FALSE(paper::choose_target(c, context("python train.py --config c.yaml")).index.has_value());
}

TEST_F(PaperTarget, AnUntiedModelGivesNoTargetWithTheCandidates) {
  const auto c = candidates_of(&r2r::test::write_results_table_pdf);
  const auto choice = paper::choose_target(c, context("python train.py --arch resnet34 --dataset cifar10"));
  EXPECT_FALSE(choice.index.has_value());
  EXPECT_THAT(choice.note, HasSubstr("no Mode 2 target: none of the paper's 2 candidates is tied"));
  EXPECT_THAT(choice.note, HasSubstr("model 'ResNet-50' not named in the command"));
  EXPECT_THAT(choice.note, HasSubstr("p.2 Table 2 row 1"));
}

TEST_F(PaperTarget, TheDatasetMustTieToo) {
  const auto c = candidates_of(&r2r::test::write_results_table_pdf);
  EXPECT_FALSE(paper::choose_target(c, context("python train.py --arch resnet50 --dataset svhn")).index.has_value());
}

TEST_F(PaperTarget, SentenceTiedThroughTheReadmeRun) {
  put("README.md", "# Demo\n\nTrain ResNet-50 on ImageNet:\n\n`python main.py --epochs 90`\n");
  const auto c = candidates_of(&r2r::test::write_sentence_pdf);
  const auto choice = paper::choose_target(
      c,
      paper::gather_context(
          repo,
          json{{"command", "python main.py --epochs 90"}, {"source", "readme"}, {"file", "README.md"}, {"line", 5}}));
  ASSERT_TRUE(choice.index.has_value()) << choice.note;
  EXPECT_EQ(c[*choice.index].source, "sentence");
  EXPECT_THAT(choice.note, HasSubstr("README.md:1-10"));
}

TEST_F(PaperTarget, TwoModelTableWithoutTheModelsNameIsAmbiguous) {
  put("README.md", "# NMT\n\nTranslate WMT14 English-German:\n`python translate.py --model transformer`\n");
  const auto c = candidates_of(&r2r::test::write_two_model_pdf);
  const auto choice =
      paper::choose_target(c, paper::gather_context(repo, json{{"command", "python translate.py --model transformer"},
                                                               {"source", "readme"},
                                                               {"file", "README.md"},
                                                               {"line", 4}}));
  EXPECT_FALSE(choice.index.has_value());
  EXPECT_THAT(choice.note, HasSubstr("no Mode 2 target"));
  EXPECT_THAT(choice.note, HasSubstr("Transformer-Big"));
}

TEST_F(PaperTarget, TiedRowWithTwoMetricsNeedsTheMetricNamed) {
  put("README.md", "# NMT\n\nTranslate WMT14 English-German:\n`python translate.py --model transformer_big`\n");
  const json w = {{"command", "python translate.py --model transformer_big"},
                  {"source", "readme"},
                  {"file", "README.md"},
                  {"line", 4}};
  const auto c = candidates_of(&r2r::test::write_two_model_pdf);
  auto choice = paper::choose_target(c, paper::gather_context(repo, w));
  EXPECT_FALSE(choice.index.has_value()) << "BLEU 28.4 and speedup 0.6 are both tied";
  EXPECT_THAT(choice.note, HasSubstr("2 candidates are tied to the workload and report different results"));

  put("README.md",
      "# NMT\n\nTranslate WMT14 English-German and print BLEU:\n"
      "`python translate.py --model transformer_big`\n");
  choice = paper::choose_target(c, paper::gather_context(repo, w));
  ASSERT_TRUE(choice.index.has_value()) << choice.note;
  EXPECT_EQ(c[*choice.index].metric, "bleu");
  EXPECT_DOUBLE_EQ(c[*choice.index].value, 28.4);
}

TEST_F(PaperTarget, ARankingPicksOnlyAmongTiedCandidates) {
  put("README.md", "# NMT\n\nTranslate WMT14 English-German:\n`python translate.py --model transformer_big`\n");
  const auto ctx = paper::gather_context(repo, json{{"command", "python translate.py --model transformer_big"},
                                                    {"source", "readme"},
                                                    {"file", "README.md"},
                                                    {"line", 4}});
  const auto c = candidates_of(&r2r::test::write_two_model_pdf);
  // The attack: the ranking names Transformer-Base's BLEU, which the command does not run.
  auto choice = paper::choose_target(c, ctx, 0);
  EXPECT_FALSE(choice.index.has_value());
  EXPECT_THAT(choice.note, HasSubstr("the ranking's pick p.1 Table 1 row 1"));
  EXPECT_THAT(choice.note, HasSubstr("was refused"));
  EXPECT_FALSE(paper::choose_target(c, ctx, 99).index.has_value());
  // Among the tied ones its pick is honoured.
  choice = paper::choose_target(c, ctx, 3);  // Transformer-Big's speedup
  ASSERT_TRUE(choice.index.has_value()) << choice.note;
  EXPECT_EQ(*choice.index, 3u);
  EXPECT_THAT(choice.note, HasSubstr("the ranking's pick"));
}

}  // namespace
