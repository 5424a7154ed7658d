// SPDX-License-Identifier: MIT
// Unit tests of the scale-down rules and the guard (fake host, built-in and inline policies).
#include "scale_down_guard.hpp"
#include "scale_rules.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::guard::scale_down_guard;
using ::testing::HasSubstr;
namespace scale = r2r::plugins::guard::scale;

nlohmann::json plan_with(const std::string& command) {
  return {{"workload", {{"command", command}, {"kind", "train"}}}, {"arch", "gfx942"}};
}

r2r::sdk::guard::check_request request(nlohmann::json action, int mode, nlohmann::json plan = nullptr) {
  return nlohmann::json{{"action", std::move(action)}, {"context", {{"mode", mode}, {"plan", std::move(plan)}}}}
      .get<r2r::sdk::guard::check_request>();
}

class ScaleDownGuard : public ::testing::Test {
 protected:
  r2r::sdk::testing::fake_host host;
  scale_down_guard guard{scale_down_guard::config{}, host.sdk_host()};
  const nlohmann::json plan = plan_with("python train.py --epochs 90 --batch-size 256 --model gpt2-xl --data imagenet");

  r2r::sdk::guard::decision workload(const std::string& command, int mode) {
    return guard.check_action(request({{"type", "run_workload"}, {"command", command}}, mode, plan));
  }
};

TEST(ScaleRules, FamiliesOfOptionNames) {
  EXPECT_EQ(scale::family_of("--epochs"), "epochs");
  EXPECT_EQ(scale::family_of("trainer.max_epochs"), "epochs");
  EXPECT_EQ(scale::family_of("num_train_epochs"), "epochs");
  EXPECT_EQ(scale::family_of("max_steps"), "steps");
  EXPECT_EQ(scale::family_of("max-iters"), "steps");
  EXPECT_EQ(scale::family_of("per_device_train_batch_size"), "batch_size");
  EXPECT_EQ(scale::family_of("--max_samples"), "dataset");
  EXPECT_EQ(scale::family_of("--fast_dev_run"), "steps");
  EXPECT_EQ(scale::family_of("--debug"), "debug_mode");
  EXPECT_EQ(scale::family_of("model_name_or_path"), "model");
  EXPECT_EQ(scale::family_of("--lr"), "");
  EXPECT_EQ(scale::family_of("--output_dir"), "");
}

TEST(ScaleRules, ModelSizes) {
  EXPECT_TRUE(scale::smaller_model("gpt2-xl", "gpt2"));
  EXPECT_TRUE(scale::smaller_model("bert-large-uncased", "bert-base-uncased"));
  EXPECT_TRUE(scale::smaller_model("t5-base", "t5-small"));
  EXPECT_TRUE(scale::smaller_model("meta-llama/Llama-2-13b-hf", "meta-llama/Llama-2-7b-hf"));
  EXPECT_FALSE(scale::smaller_model("gpt2", "gpt2-xl"));
  EXPECT_FALSE(scale::smaller_model("bert-base-uncased", "roberta-base"));
  EXPECT_FALSE(scale::smaller_model("gpt2", "gpt2"));
}

TEST(ScaleRules, SettingsOfConfigLines) {
  EXPECT_EQ(scale::settings_of_line("epochs: 90").at("epochs"), "90");
  EXPECT_EQ(scale::settings_of_line("  \"num_train_epochs\": 3,").at("num_train_epochs"), "3");
  EXPECT_EQ(scale::settings_of_line("MAX_STEPS = 1000  # total").at("max_steps"), "1000");
  EXPECT_EQ(scale::settings_of_line("python train.py --epochs 90").at("epochs"), "90");
  EXPECT_TRUE(scale::has_slice("train[:100]"));
  EXPECT_TRUE(scale::has_slice("train[:10%]"));
  EXPECT_FALSE(scale::has_slice("train"));
}

TEST_F(ScaleDownGuard, SameScaleAsThePlanIsAllowedWithoutLedger) {
  const auto d =
      workload("cd /repo && python ./train.py --epochs 90 --batch-size=256 --model gpt2-xl --data imagenet", 2);
  EXPECT_EQ(d.verdict, "allow");
  EXPECT_TRUE(d.ledger.empty());
  EXPECT_EQ(workload("python train.py --epochs 120 --batch-size 512 --model gpt2-xl", 2).verdict, "allow");
}

TEST_F(ScaleDownGuard, Mode1RecordsFewerEpochsAsD5) {
  const auto d = workload("python train.py --epochs 1 --batch-size 256 --model gpt2-xl", 1);
  EXPECT_EQ(d.verdict, "allow");
  ASSERT_EQ(d.ledger.size(), 1u);
  EXPECT_EQ(d.ledger[0].level, "D5");
  EXPECT_THAT(d.ledger[0].note, HasSubstr("lowers epochs from 90 to 1"));
}

TEST_F(ScaleDownGuard, Mode2DeniesEveryScaleDown) {
  for (const char* command :
       {"python train.py --epochs=1 --batch-size 256", "python train.py --epochs 90 --batch-size 8",
        "python train.py --epochs 90 --model gpt2", "python train.py --fast_dev_run", "python train.py --debug",
        "python train.py --max_samples 100", "python train.py --limit 10", "python train.py --data imagenet[:100]",
        "python train.py trainer.max_epochs=1 --subset 0.1", "bash -c 'python train.py --epochs 2'"}) {
    const auto d = workload(command, 2);
    EXPECT_EQ(d.verdict, "deny") << command;
    EXPECT_THAT(d.reason, HasSubstr("scale-down")) << command;
    EXPECT_THAT(d.unlock, HasSubstr("mode2")) << command;
  }
}

TEST_F(ScaleDownGuard, HydraOverridesAreComparedWithThePlan) {
  const auto hydra_plan = plan_with("python run.py trainer.max_epochs=100 data.batch_size=64");
  auto check = [&](const std::string& command) {
    return guard.check_action(request({{"type", "run_workload"}, {"command", command}}, 2, hydra_plan)).verdict;
  };
  EXPECT_EQ(check("python run.py trainer.max_epochs=100 data.batch_size=64"), "allow");
  EXPECT_EQ(check("python run.py trainer.max_epochs=3 data.batch_size=64"), "deny");
  EXPECT_EQ(check("python run.py +trainer.max_epochs=100 data.batch_size=16"), "deny");
}

TEST_F(ScaleDownGuard, AShortRunChosenByThePlanIsNotAScaleDown) {
  const auto short_plan = plan_with("python finetune.py --epochs 1 --max_steps 50");
  const auto d = guard.check_action(
      request({{"type", "run_workload"}, {"command", "python finetune.py --epochs 1 --max_steps 50"}}, 2, short_plan));
  EXPECT_EQ(d.verdict, "allow");
  EXPECT_TRUE(d.ledger.empty());
}

TEST_F(ScaleDownGuard, OtherCommandsAreNotComparedButAnotherWorkloadIs) {
  EXPECT_EQ(
      guard.check_action(request({{"type", "run"}, {"command", "python tests/smoke.py --epochs 1"}}, 2, plan)).verdict,
      "allow");
  const auto d = guard.check_action(request({{"type", "run_workload"}, {"command", "python demo.py"}}, 2, plan));
  EXPECT_EQ(d.verdict, "deny");
  EXPECT_THAT(d.reason, HasSubstr("instead of the plan's workload"));
  // `run` of the plan's script is compared too.
  EXPECT_EQ(guard.check_action(request({{"type", "run"}, {"command", "python train.py --epochs 3"}}, 2, plan)).verdict,
            "deny");
}

TEST_F(ScaleDownGuard, ConfigEditsThatLowerTheScale) {
  const std::string patch =
      "--- a/config.yaml\n+++ b/config.yaml\n@@ -1,3 +1,3 @@\n model: resnet50\n-epochs: 90\n+epochs: 1\n lr: 0.1\n";
  EXPECT_EQ(guard.check_action(request({{"type", "apply_patch"}, {"patch", patch}}, 2)).verdict, "deny");
  const auto d1 = guard.check_action(request({{"type", "apply_patch"}, {"patch", patch}}, 1));
  EXPECT_EQ(d1.verdict, "allow");
  ASSERT_EQ(d1.ledger.size(), 1u);
  EXPECT_EQ(d1.ledger[0].component, "config.yaml:epochs");
  const std::string json_patch =
      "--- a/args.json\n+++ b/args.json\n@@ -1 +1 @@\n-  \"num_train_epochs\": 3, \"max_steps\": -1\n+  "
      "\"num_train_epochs\": 3, \"max_steps\": 10\n";
  EXPECT_EQ(guard.check_action(request({{"type", "apply_patch"}, {"patch", json_patch}}, 2)).verdict, "allow");
  const std::string raise = "--- a/config.yaml\n+++ b/config.yaml\n@@ -1 +1 @@\n-batch_size: 32\n+batch_size: 64\n";
  EXPECT_EQ(guard.check_action(request({{"type", "apply_patch"}, {"patch", raise}}, 2)).verdict, "allow");
}

TEST_F(ScaleDownGuard, WriteFileIsComparedWithTheContentReadBefore) {
  const auto read = nlohmann::json{{"action", {{"type", "read_file"}, {"path", "./configs/train.yaml"}}},
                                   {"observation", {{"exit_code", 0}, {"stdout", "epochs: 90\nbatch_size: 256\n"}}}}
                        .get<r2r::sdk::guard::observe_request>();
  guard.observe(read);
  auto write = [&](const char* content) {
    return guard.check_action(
        request({{"type", "write_file"}, {"path", "configs/train.yaml"}, {"content", content}}, 2));
  };
  EXPECT_EQ(write("epochs: 90\nbatch_size: 256\nlr: 0.2\n").verdict, "allow");
  const auto d = write("epochs: 1\nbatch_size: 256\n");
  EXPECT_EQ(d.verdict, "deny");
  EXPECT_THAT(d.reason, HasSubstr("lowers epochs from 90 to 1"));
}

TEST_F(ScaleDownGuard, WriteFileOfAnUnseenConfigSettingTheScaleIsFlagged) {
  const auto d =
      guard.check_action(request({{"type", "write_file"}, {"path", "cfg/new.yaml"}, {"content", "epochs: 1\n"}}, 2));
  EXPECT_EQ(d.verdict, "deny");
  EXPECT_THAT(d.reason, HasSubstr("read_file it first"));
  EXPECT_EQ(guard.check_action(request({{"type", "write_file"}, {"path", "notes.md"}, {"content", "epochs: 1\n"}}, 2))
                .verdict,
            "allow");
}

TEST_F(ScaleDownGuard, SedSubstitutionsInConfigFiles) {
  auto run = [&](const std::string& command, int mode) {
    return guard.check_action(request({{"type", "run"}, {"command", command}}, mode));
  };
  EXPECT_EQ(run("sed -i 's/epochs: 90/epochs: 1/' config.yaml", 2).verdict, "deny");
  EXPECT_EQ(run("cd cfg && sed -i -e 's/\"max_steps\": 10000/\"max_steps\": 20/' train.json", 2).verdict, "deny");
  EXPECT_EQ(run("sed -i 's/epochs: 90/epochs: 1/' config.yaml", 1).ledger.size(), 1u);
  EXPECT_EQ(run("sed -i 's/lr: 0.1/lr: 0.01/' config.yaml", 2).verdict, "allow");
  EXPECT_EQ(run("perl -pi -e 's/num_train_epochs=3/num_train_epochs=1/' run.sh", 2).verdict, "deny");
}

TEST_F(ScaleDownGuard, DatasetSlicesInCodeEdits) {
  const std::string patch =
      "--- a/data.py\n+++ b/data.py\n@@ -1 +1 @@\n-ds = load_dataset('imdb', split='train')\n+ds = "
      "load_dataset('imdb', split='train[:100]')\n";
  EXPECT_EQ(guard.check_action(request({{"type", "apply_patch"}, {"patch", patch}}, 2)).verdict, "deny");
  const std::string select = "--- a/data.py\n+++ b/data.py\n@@ -1 +1,2 @@\n ds = load()\n+ds = ds.select(range(100))\n";
  EXPECT_EQ(guard.check_action(request({{"type", "apply_patch"}, {"patch", select}}, 2)).verdict, "deny");
}

TEST_F(ScaleDownGuard, InlinePolicyCanDenyInMode1OrRequireAReason) {
  scale_down_guard strict({nlohmann::json{{"guard", "r2r.guard.scale-down"},
                                          {"components", {{"*", {{"level", "D5"}, {"default", "deny"}}}}}},
                           1 << 20},
                          host.sdk_host());
  EXPECT_EQ(strict.check_action(request({{"type", "run_workload"}, {"command", "python train.py --epochs 1"}}, 1, plan))
                .verdict,
            "deny");
  scale_down_guard with_reason(
      {nlohmann::json{{"guard", "r2r.guard.scale-down"},
                      {"components", {{"epochs", {{"level", "D5"}, {"default", "record"}, {"require_reason", true}}}}}},
       1 << 20},
      host.sdk_host());
  const nlohmann::json short_run = {{"type", "run_workload"}, {"command", "python train.py --epochs 1"}};
  const auto no_reason = with_reason.check_action(request(short_run, 2, plan));
  EXPECT_EQ(no_reason.verdict, "deny");
  EXPECT_THAT(no_reason.unlock, HasSubstr("reason"));
  auto justified = short_run;
  justified["reason"] = "one epoch shows the GPU path runs";
  EXPECT_EQ(with_reason.check_action(request(justified, 2, plan)).verdict, "allow");
}

TEST_F(ScaleDownGuard, InvalidPoliciesNameThePointer) {
  try {
    scale_down_guard bad({nlohmann::json{{"guard", "r2r.guard.scale-down"},
                                         {"components", {{"epochs", {{"level", "D5"}, {"default", "maybe"}}}}}},
                          1 << 20},
                         host.sdk_host());
    FAIL() << "accepted an invalid policy";
  } catch (const r2r::sdk::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("/components/epochs/default"));
    EXPECT_THAT(e.what(), HasSubstr("\"maybe\""));
  }
  EXPECT_THROW(scale_down_guard({nlohmann::json("/nonexistent/policy.json"), 1 << 20}, host.sdk_host()),
               r2r::sdk::invalid_argument);
}

}  // namespace
