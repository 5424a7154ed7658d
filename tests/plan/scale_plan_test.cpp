// SPDX-License-Identifier: MIT
// plan.scale: the workload's scale-bearing files (its script, the config its command names, the
// config its defaults name) with their values at the pinned commit.
#include "fixture_repos.hpp"

#include "../unit/test_support.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/planning/fingerprint.hpp>
#include <r2r/planning/plan.hpp>
#include <r2r/sdk/scale_values.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::planning;
using nlohmann::json;
using r2r::test::write_file;

json plan_for(const std::filesystem::path& root) {
  auto fp = scan_repository(root, builtin_knowledge());
  fp.commit = std::string(40, 'a');
  EXPECT_TRUE(r2r::core::embedded_schema("fingerprint.schema.json")->validate(to_json(fp)).empty());
  plan_inputs in;
  in.fp = &fp;
  in.ranking = json::object();
  auto p = build_plan(in, builtin_knowledge());
  const auto violations = r2r::core::embedded_schema("plan.schema.json")->validate(p);
  EXPECT_TRUE(violations.empty()) << r2r::core::format_violation(violations.front());
  return p;
}

TEST(PlanScale, ScriptDefaultsAndTheConfigFilesTheyNameAreRecordedWithValues) {
  r2r::test::temp_dir d;
  write_file(d.path(), "README.md", "# x\n\n```bash\npython train.py --lr 0.1\n```\n");
  write_file(d.path(), "train.py",
             "import argparse\n"
             "if __name__ == '__main__':\n"
             "    p = argparse.ArgumentParser()\n"
             "    p.add_argument('--config', default='configs/base.yaml')\n"
             "    p.add_argument('--num-epochs',\n"  // line 5
             "                   type=int, default=90)\n"
             "    p.add_argument('--lr', type=float, default=0.1)\n"
             "    args = p.parse_args()\n");
  write_file(d.path(), "configs/base.yaml", "model: resnet\ntrain:\n  max_steps: 5000\n  batch_size: 256\n");
  write_file(d.path(), "configs/unused.yaml", "epochs: 3\n");
  const auto p = plan_for(d.path());
  ASSERT_EQ(p["workload"]["command"], "python train.py --lr 0.1");
  const auto& files = p["scale"]["files"];
  ASSERT_EQ(files.size(), 2u) << p["scale"].dump();
  EXPECT_EQ(files[0]["file"], "train.py");
  ASSERT_EQ(files[0]["values"].size(), 2u);
  EXPECT_EQ(files[0]["values"][0],
            json({{"key", "config"}, {"value", "configs/base.yaml"}, {"line", 4}, {"form", "config_path"}}));
  EXPECT_EQ(files[0]["values"][1],
            json({{"key", "num_epochs"}, {"value", "90"}, {"line", 5}, {"form", "argparse_default"}}));
  EXPECT_EQ(files[1]["file"], "configs/base.yaml");
  EXPECT_EQ(files[1]["values"].size(), 2u);
  EXPECT_EQ(files[1]["values"][0]["key"], "max_steps");
  EXPECT_EQ(files[1]["values"][0]["value"], "5000");
  EXPECT_EQ(files[1]["values"][0]["line"], 3);
}

TEST(PlanScale, AConfigNamedOnTheCommandLine) {
  r2r::test::temp_dir d;
  write_file(d.path(), "README.md", "# x\n\n```bash\npython -m pkg.train --config=cfg/run.json\n```\n");
  write_file(d.path(), "pkg/__init__.py", "");
  write_file(d.path(), "pkg/train.py", "EPOCHS = 12\nif __name__ == '__main__':\n    pass\n");
  write_file(d.path(), "cfg/run.json", "{\n  \"optim\": {\"lr\": 0.1},\n  \"epochs\": 30\n}\n");
  const auto p = plan_for(d.path());
  const auto& files = p["scale"]["files"];
  ASSERT_EQ(files.size(), 2u) << p["scale"].dump() << p["workload"].dump();
  EXPECT_EQ(files[0]["file"], "pkg/train.py");
  EXPECT_EQ(files[0]["values"][0]["form"], "constant");
  EXPECT_EQ(files[1]["file"], "cfg/run.json");
  EXPECT_EQ(files[1]["values"][0], json({{"key", "epochs"}, {"value", "30"}, {"line", 3}, {"form", "config_key"}}));
}

// The planner hands a file to the shared scale rules only when it could hold a scale value (a speed
// pre-filter); every form of every key must still be found, upper case and dashed keys included,
// exactly as the verifier's own call of the rules finds them.
TEST(PlanScale, ThePreFilterKeepsEveryValueTheSharedRulesFind) {
  r2r::test::temp_dir dir;
  const std::pair<const char*, const char*> files[] = {
      {"a.py", "MAX_ITERS = 10\nNUM_EPOCHS = 3\nRESOLUTION = 256\n"},
      {"b.py",
       "import argparse\np = argparse.ArgumentParser()\np.add_argument('--d-model', default=512)\n"
       "p.add_argument('--cfg', default='cfg/x.yaml')\n"},
      {"c.py", "def f(bs=8):\n    return bs\nBS = 4\n"},
      {"d.yaml", "D-Model: 64\nn-embd: 32\nSubset: 100\n"},
      {"e.py", "x = 1\ny = torch.relu(x)\n"}};
  std::size_t expected = 0;
  for (const auto& [name, text] : files) {
    write_file(dir.path(), name, text);
    expected += r2r::sdk::scan_scale_values(name, text).size();
  }
  const auto fp = scan_repository(dir.path(), builtin_knowledge());
  EXPECT_GE(expected, 8u);
  EXPECT_EQ(fp.scale_values.size(), expected);
}

}  // namespace
