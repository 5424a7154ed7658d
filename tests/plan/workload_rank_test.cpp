// SPDX-License-Identifier: MIT
// Issue 18's workload choice: with several documented runs the plan picks the documented training
// run, prefers the repository's own entry points (python -m pkg.entry counts) over helper scripts
// (test.sh, downloads, an API client), and lists the alternatives with their lines and reasons.
#include "fixture_repos.hpp"

#include "../unit/test_support.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/planning/fingerprint.hpp>
#include <r2r/planning/plan.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::planning;
using r2r::test::write_file;
using ::testing::HasSubstr;

nlohmann::json plan_of(const std::filesystem::path& root) {
  auto fp = scan_repository(root, builtin_knowledge());
  fp.commit = std::string(40, 'b');
  plan_inputs in;
  in.fp = &fp;
  in.ranking = {{"candidates", nlohmann::json::array()}};
  in.base_image_override = "rocm/pytorch:latest";
  auto plan = build_plan(in, builtin_knowledge());
  const auto violations = r2r::core::embedded_schema("plan.schema.json")->validate(plan);
  EXPECT_TRUE(violations.empty()) << r2r::core::format_violation(violations.front());
  return plan;
}

void make_five_runs(const std::filesystem::path& r) {
  write_file(r, "README.md",
             "# mdl\n"                                             // 1
             "```bash\n"                                           // 2
             "bash download_weights.sh\n"                          // 3
             "bash test.sh\n"                                      // 4
             "python api_client.py --url http://localhost:8000\n"  // 5
             "python -m mdl.evaluate --ckpt out/last.pt\n"         // 6
             "python -m mdl.train --config configs/base.yaml\n"    // 7
             "python demo.py --image x.png\n"                      // 8
             "```\n");
  write_file(r, "download_weights.sh", "wget https://example.org/w.pt\n");
  write_file(r, "test.sh", "python -m pytest tests\n");
  write_file(r, "api_client.py", "import requests\nif __name__ == '__main__':\n    requests.get('x')\n");
  write_file(r, "mdl/__init__.py", "");
  write_file(r, "mdl/train.py", "import torch\n");
  write_file(r, "mdl/evaluate.py", "import torch\n");
  write_file(r, "demo.py", "import torch\n");
  write_file(r, "configs/base.yaml", "epochs: 3\n");
}

TEST(WorkloadRank, TheDocumentedTrainingRunOfFiveIsChosen) {
  r2r::test::temp_dir dir;
  make_five_runs(dir.path());
  const auto plan = plan_of(dir.path());
  const auto& w = plan.at("workload");
  ASSERT_TRUE(w.is_object());
  EXPECT_EQ(w.at("command"), "python -m mdl.train --config configs/base.yaml");
  EXPECT_EQ(w.at("kind"), "train");
  EXPECT_EQ(w.at("line"), 7);
  EXPECT_THAT(w.at("reason").get<std::string>(), HasSubstr("ranked first of"));
  EXPECT_THAT(w.at("reasons").dump(), HasSubstr("module entry point mdl.train"));
  // Every other documented run is an alternative with its README line and why it ranked below.
  const auto& alts = w.at("alternatives");
  ASSERT_GE(alts.size(), 5u);
  std::map<int, std::string> why;
  for (const auto& a : alts) {
    if (a.at("file") == "README.md") why[a.at("line").get<int>()] = a.at("why_not").get<std::string>();
  }
  for (int line : {3, 4, 5, 6, 8}) EXPECT_TRUE(why.count(line)) << "README.md:" << line << " is not listed";
  EXPECT_THAT(why[3], HasSubstr("download script"));
  EXPECT_THAT(why[4], HasSubstr("test script"));
  EXPECT_THAT(why[5], HasSubstr("API-client script"));
  // Best first: the evaluation and inference runs outrank the helpers.
  EXPECT_EQ(alts.front().at("kind"), "infer");
}

TEST(WorkloadRank, AHelperNamedLikeTrainingDoesNotWinOverTheRealRun) {
  // The attack: a download helper whose name holds "train" ("download_train_data.sh") must not be
  // chosen over the documented evaluation run just because "train" outranks "eval".
  r2r::test::temp_dir dir;
  write_file(dir.path(), "README.md", "```bash\nbash download_train_data.sh\npython eval.py --split test\n```\n");
  write_file(dir.path(), "download_train_data.sh", "wget https://example.org/d.tar\n");
  write_file(dir.path(), "eval.py", "import torch\n");
  const auto plan = plan_of(dir.path());
  EXPECT_EQ(plan.at("workload").at("command"), "python eval.py --split test");
}

TEST(WorkloadRank, ASingleRunHasNoAlternativesAndTheHonestReason) {
  r2r::test::temp_dir dir;
  write_file(dir.path(), "README.md", "```bash\npython train.py\n```\n");
  write_file(dir.path(), "train.py", "import torch\n");
  const auto w = plan_of(dir.path()).at("workload");
  EXPECT_EQ(w.at("command"), "python train.py");
  EXPECT_EQ(w.at("reason"), "the README's train command");
  EXPECT_TRUE(w.at("alternatives").empty());
}

}  // namespace
