// SPDX-License-Identifier: MIT
// scale_as_planned from the files, attack first: an epoch count lowered in a config file, an
// argparse default lowered, an override added in code, a file removed; then the honest cases (the
// files unchanged, a change the ledger records) and the read through the sandbox exec.
#include <r2r/verify/mode1.hpp>
#include <r2r/verify/scale_as_planned.hpp>

#include <r2r/sdk/kinds/sandbox.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::verifier;
using nlohmann::json;
using ::testing::HasSubstr;
namespace v = r2r::sdk::verifier;

const std::string train_py =
    "import argparse\n"
    "p = argparse.ArgumentParser()\n"
    "p.add_argument('--config', default='configs/base.yaml')\n"
    "p.add_argument(\n"
    "    '--epochs', type=int,\n"
    "    default=90, help='training epochs')\n"  // the call starts on line 4
    "p.add_argument('--lr', type=float, default=0.1)\n"
    "args = p.parse_args()\n";
const std::string base_yaml = "model: resnet50\ntrain:\n  epochs: 90\n  batch_size: 256\n";

json plan_json() {
  return {{"workload", {{"command", "python train.py"}}},
          {"scale",
           {{"files",
             {{{"file", "train.py"},
               {"values",
                {{{"key", "config"}, {"value", "configs/base.yaml"}, {"line", 3}},
                 {{"key", "epochs"}, {"value", "90"}, {"line", 4}}}}},
              {{"file", "configs/base.yaml"},
               {"values",
                {{{"key", "epochs"}, {"value", "90"}, {"line", 3}},
                 {{"key", "batch_size"}, {"value", "256"}, {"line", 4}}}}}}}}}};
}

v::check judge(const std::string& py, const std::string& yaml, const std::vector<v::ledger_entry>& ledger = {}) {
  std::map<std::string, std::optional<std::string>> files = {{"train.py", py}, {"configs/base.yaml", yaml}};
  return check_scale_as_planned("python train.py", scale_files_from_plan(plan_json()), files, true, ledger);
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

// ------------------------------------------------------------------ attacks

TEST(ScaleAsPlanned, EpochsLoweredInTheConfigFileIsNotVerified) {
  const auto c = judge(train_py, replace(base_yaml, "epochs: 90", "epochs: 1"));
  EXPECT_EQ(c.status, "not_verified");
  EXPECT_THAT(c.detail, HasSubstr("configs/base.yaml:3: epochs = 1 (pinned commit: 90)"));
}

TEST(ScaleAsPlanned, ArgparseDefaultLoweredIsNotVerified) {
  const auto c = judge(replace(train_py, "default=90", "default=2"), base_yaml);
  EXPECT_EQ(c.status, "not_verified");
  EXPECT_THAT(c.detail, HasSubstr("train.py:4: epochs = 2 (pinned commit: 90)"));
}

TEST(ScaleAsPlanned, OverrideAddedInCodeIsNotVerified) {
  const auto c = judge(train_py + "args.epochs = 1\n", base_yaml);
  EXPECT_EQ(c.status, "not_verified");
  EXPECT_THAT(c.detail, HasSubstr("overridden in code"));
  EXPECT_EQ(judge(train_py + "p.set_defaults(max_steps=10)\n", base_yaml).status, "not_verified");
}

TEST(ScaleAsPlanned, RemovedKeyOrFileIsNotVerified) {
  EXPECT_EQ(judge(train_py, "model: resnet50\ntrain:\n  batch_size: 256\n").status, "not_verified");
  std::map<std::string, std::optional<std::string>> files = {{"train.py", train_py},
                                                             {"configs/base.yaml", std::nullopt}};
  const auto c = check_scale_as_planned("python train.py", scale_files_from_plan(plan_json()), files, true, {});
  EXPECT_EQ(c.status, "not_verified");
  EXPECT_THAT(c.detail, HasSubstr("configs/base.yaml is missing"));
}

TEST(ScaleAsPlanned, UnreadableWorkspaceIsNotVerified) {
  EXPECT_EQ(check_scale_as_planned("python train.py", scale_files_from_plan(plan_json()), {}, false, {}).status,
            "not_verified");
}

TEST(ScaleAsPlanned, ForgedFenceInsideAFileStaysContent) {
  const std::string out =
      "\n@@R2R-SCALE-n1 train.py\nx = 1\n@@R2R-SCALE-forged configs/base.yaml\nepochs: 1\n"
      "\n@@R2R-SCALE-n1 MISSING configs/base.yaml\n";
  const auto files = parse_scale_output(out, "n1");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_THAT(*files.at("train.py"), HasSubstr("@@R2R-SCALE-forged"));
  EXPECT_FALSE(files.at("configs/base.yaml").has_value());
}

// ------------------------------------------------------------------ honest cases

TEST(ScaleAsPlanned, UnchangedFilesPass) {
  const auto c = judge(train_py, base_yaml);
  EXPECT_EQ(c.status, "pass") << c.detail;
  EXPECT_THAT(c.detail, HasSubstr("4 scale value(s) in train.py, configs/base.yaml match"));
}

TEST(ScaleAsPlanned, AChangeTheLedgerRecordsPasses) {
  const auto c = judge(train_py, replace(base_yaml, "batch_size: 256", "batch_size: 128"),
                       {{"configs/base.yaml", "D1", "batch 256 -> 128 to fit 64 GB"}});
  EXPECT_EQ(c.status, "pass") << c.detail;
  EXPECT_THAT(c.detail, HasSubstr("changes recorded in the ledger"));
}

TEST(ScaleAsPlanned, NoPlannedFilesPassesOnTheCommand) {
  const auto c = check_scale_as_planned("python x.py", {}, {}, true, {});
  EXPECT_EQ(c.status, "pass");
}

TEST(ScaleAsPlanned, TheVerifierReadsTheFilesThroughTheSandboxBeforeTheWorkload) {
  r2r::sdk::testing::fake_host host;
  std::vector<std::string> commands;
  host.serve("sandbox", [&](const std::string&, const json& req) {
    commands.push_back(req.at("command"));
    r2r::sdk::sandbox::exec_response out;
    if (req.at("command") == scale_read_script()) {
      EXPECT_EQ(req.at("env").at("R2R_SCALE_FILES"), "train.py\nconfigs/base.yaml\n");
      const std::string n = req.at("env").at("R2R_SCALE_NONCE");
      out.stdout_text = "\n@@R2R-SCALE-" + n + " train.py\n" + train_py + "\n@@R2R-SCALE-" + n +
                        " configs/base.yaml\n" + replace(base_yaml, "epochs: 90", "epochs: 1");
    } else {
      out.exit_code = 0;  // the collector: no device in this output
    }
    return json(out);
  });
  mode1_config cfg;
  mode1_verifier verifier(cfg, host.sdk_host());
  v::verify_request req;
  req.plan = plan_json();
  req.sandbox = v::sandbox_ref{"sbx1", "/workspace", "img"};
  auto ctx = host.context();
  const auto r = verifier.verify(req, ctx);
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0], scale_read_script());
  EXPECT_NE(r.verdict, "pass");
}

}  // namespace
