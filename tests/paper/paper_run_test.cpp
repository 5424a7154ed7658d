// SPDX-License-Identifier: MIT
// Acceptance of issue 21 through the CLI: a fixture repository and its paper. `run --mode 2
// --paper` plans the Mode 2 target from the paper (page, table, row, extractor, tolerance); the
// workload's own output is then judged by r2r.verifier.mode2-metrics against that plan. This host
// has no ROCm device, so the run ends no_device and the Mode 1 pass that Mode 2 requires is
// supplied by the test (the workload run with python3 on the host); nothing else is simulated.
#include "../plan/fixture_repos.hpp"
#include "../run/run_fixture.hpp"
#include "test_pdfs.hpp"

#include <r2r/report/html.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using r2r::test::read_text;
using r2r::test::run_process;
using ::testing::HasSubstr;

const char* const train_py = R"(import argparse, sys
p = argparse.ArgumentParser()
p.add_argument("--config", required=True)
p.add_argument("--final", default="93.9")
a = p.parse_args()
cfg = open(a.config).read()
assert "resnet50" in cfg, cfg
for epoch in range(3):
    print(f"epoch {epoch} loss={1.0 / (epoch + 1):.3f}")
print("top-5 accuracy: 99.7%")
print(f"top-1 accuracy: {a.final}%")
)";

class PaperRun : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = tmp.path() / "wide-resnet";
    r2r::test::write_file(repo, "README.md",
                          "# ResNets on CIFAR-10\n\nTrain ResNet-50 on CIFAR-10 and print its test top-1 accuracy:\n\n"
                          "```bash\npython train.py --config configs/default.yaml\n```\n");
    r2r::test::write_file(repo, "train.py", train_py);
    r2r::test::write_file(repo, "configs/default.yaml", "arch: resnet50\ndataset: cifar10\nepochs: 3\n");
    r2r::test::git_commit_all(repo, "fixture");
  }
  r2r::test::process_result plan(const fs::path& paper) {
    const auto exe = r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm";
    return run_process(exe.string() + " --plugin-path " + r2r::test::plugin_dir().string() + " plan '" + repo.string() +
                       "' --out '" + (tmp.path() / "out").string() + "' --cache-dir '" +
                       (tmp.path() / "cache").string() + "' --state-dir '" + (tmp.path() / "state").string() +
                       "' --paper '" + paper.string() + "'");
  }
  // r2r.verifier.mode2-metrics on `plan` with a Mode 1 pass whose workload printed `log`.
  json mode2(const json& plan, const std::string& log) {
    const json request = {
        {"plan", plan},
        {"mode", 2},
        {"earlier",
         {{{"verdict", "pass"},
           {"checks", json::array()},
           {"workload", {{"command", plan["workload"]["command"]}, {"exit_code", 0}, {"log", log}}}}}}};
    std::ofstream(tmp.path() / "request.json") << request.dump();
    const auto exe = r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm";
    const auto r = run_process(exe.string() + " --plugin-path " + r2r::test::plugin_dir().string() +
                               " plugins call r2r.verifier.mode2-metrics verify --request @" +
                               (tmp.path() / "request.json").string());
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return json::parse(r.out, nullptr, false);
  }
  std::string workload_output(const std::string& extra = "") {
    const auto r = run_process("cd '" + repo.string() + "' && python3 train.py --config configs/default.yaml" + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  r2r::test::temp_dir tmp;
  fs::path repo;
};

TEST_F(PaperRun, Mode2TargetFromThePaperIsPlannedAndDecidedWithinTolerance) {
  const fs::path paper = tmp.path() / "resnets.pdf";
  r2r::test::write_results_table_pdf(paper);
  const fs::path dir = tmp.path() / "run";
  const auto r =
      run_process(r2r::test::run_command(tmp.path(), "'" + repo.string() + "' --mode 2 --json --run-dir '" +
                                                         dir.string() + "' --paper '" + paper.string() + "'"));
  ASSERT_EQ(r.exit_code, 4) << r.out << r.err;  // no ROCm device here

  const json plan = json::parse(read_text(dir / "plan.json"));
  const json& m = plan["metric"];
  ASSERT_TRUE(m.is_object()) << plan["metric_note"] << plan["paper"].dump(2);
  EXPECT_EQ(m["source"], "paper");
  EXPECT_EQ(m["file"], "resnets.pdf");
  EXPECT_EQ(m["page"], 2);
  EXPECT_EQ(m["table"], "Table 2");
  EXPECT_EQ(m["row"], 2);
  EXPECT_EQ(m["model"], "ResNet-50");
  EXPECT_EQ(m["dataset"], "CIFAR-10");
  EXPECT_DOUBLE_EQ(m["value"].get<double>(), 94.6);
  EXPECT_EQ(m["unit"], "%");
  EXPECT_EQ(m["class"], "accuracy");
  EXPECT_EQ(m["tolerance"], (json{{"kind", "absolute"}, {"value", 3.0}}));
  EXPECT_EQ(m["extractor"], (json{{"kind", "label"}, {"label", "accuracy"}, {"qualifier", "top-1"}}));
  EXPECT_THAT(plan["metric_note"].get<std::string>(), HasSubstr("configs/default.yaml"));
  EXPECT_EQ(plan["paper"]["format"], "pdf");
  EXPECT_EQ(plan["paper"]["candidates"].size(), 2u);
  EXPECT_EQ(plan["paper"]["target"], 1);
  // `plan` says where the target came from.
  const auto planned = this->plan(paper);
  EXPECT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_THAT(planned.out, HasSubstr("from resnets.pdf page 2, Table 2 row 2"));

  // report.html shows the paper's value, the tolerance and the page; nothing was measured here.
  const std::string html = read_text(dir / "bundle/report.html");
  EXPECT_THAT(html, HasSubstr("<h2>Mode 2 target</h2>"));
  EXPECT_THAT(html, HasSubstr("<td id=\"target-planned\">94.6%</td>"));
  EXPECT_THAT(html, HasSubstr("<td id=\"target-measured\">not measured</td>"));
  EXPECT_THAT(html, HasSubstr("&plusmn;3 points absolute"));
  EXPECT_THAT(html, HasSubstr("resnets.pdf, page 2, Table 2 row 2 (ResNet-50)"));

  // The workload's own output: top-1 93.9 % against the paper's 94.6 % (3 points absolute).
  const json within = mode2(plan, workload_output());
  EXPECT_EQ(within["verdict"], "pass") << within.dump(2);
  EXPECT_DOUBLE_EQ(within["metrics"]["accuracy"].get<double>(), 93.9) << within.dump(2);
  // The same report with that measurement renders it beside the paper's value.
  json report = json::parse(read_text(dir / "bundle/report.json"));
  report["target"]["measured"] = within["metrics"]["accuracy"];
  EXPECT_THAT(r2r::report::render_html(report, {}, ""), HasSubstr("<td id=\"target-measured\">93.9%</td>"));
  // Outside the tolerance, and better than the paper beyond it, are both refused.
  for (const char* final : {"90.1", "99.0"}) {
    const json off = mode2(plan, workload_output(std::string(" --final ") + final));
    EXPECT_EQ(off["verdict"], "fail") << final << off.dump(2);
  }
}

TEST_F(PaperRun, APaperThatCannotBeTiedGivesNoMode2TargetWithCandidates) {
  const fs::path paper = tmp.path() / "nmt.pdf";
  r2r::test::write_two_model_pdf(paper);
  const auto r = plan(paper);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json plan = json::parse(read_text(tmp.path() / "out/plan.json"));
  EXPECT_TRUE(plan["metric"].is_null());
  EXPECT_THAT(plan["metric_note"].get<std::string>(),
              HasSubstr("no Mode 2 target: none of the paper's 4 candidates is tied to the workload"));
  EXPECT_THAT(plan["metric_note"].get<std::string>(), HasSubstr("Transformer-Big"));
  ASSERT_EQ(plan["paper"]["candidates"].size(), 4u);
  for (const auto& c : plan["paper"]["candidates"]) EXPECT_FALSE(c["tied"].get<bool>()) << c.dump();
  EXPECT_TRUE(plan["paper"]["target"].is_null());
}

TEST_F(PaperRun, AnUnreadablePaperStopsThePlanWithWhatToDo) {
  const fs::path scan = tmp.path() / "scan.pdf";
  r2r::test::write_image_only_pdf(scan);
  auto r = plan(scan);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no text layer"));
  std::ofstream(tmp.path() / "cut.pdf") << "%PDF-1.5\n1 0 obj\n<<";
  r = plan(tmp.path() / "cut.pdf");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("truncated"));
}

}  // namespace
