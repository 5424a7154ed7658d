// SPDX-License-Identifier: MIT
// plan.assets: what the workload loads, from the code, with the file:line of each ask; what is
// not fetched says why.
#include "fixture_repos.hpp"

#include "../unit/test_support.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/planning/fingerprint.hpp>
#include <r2r/planning/plan.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::planning;
using nlohmann::json;
using r2r::test::write_file;

json plan_for(const std::filesystem::path& root) {
  auto fp = scan_repository(root, builtin_knowledge());
  fp.commit = std::string(40, 'a');
  plan_inputs in;
  in.fp = &fp;
  in.ranking = json::object();
  in.tree = root;
  auto p = build_plan(in, builtin_knowledge());
  const auto violations = r2r::core::embedded_schema("plan.schema.json")->validate(p);
  EXPECT_TRUE(violations.empty()) << r2r::core::format_violation(violations.front());
  return p;
}

const json* find(const json& assets, const std::string& id) {
  for (const auto& a : assets)
    if (a["id"] == id) return &a;
  return nullptr;
}

TEST(PlanAssets, ModelsDatasetsUrlsAndHubReposAreListedWithWhereTheyAreAsked) {
  r2r::test::temp_dir d;
  write_file(d.path(), "README.md",
             "# x\n\nSee https://huggingface.co/org/linked-model for the card.\n\n```bash\npython train.py\n```\n");
  write_file(d.path(), "train.py",
             "from transformers import AutoModel\n"
             "from datasets import load_dataset\n"
             "import torch\n"
             "m = AutoModel.from_pretrained('org/tiny', revision='v1.0')\n"
             "tok = AutoTokenizer.from_pretrained(\"org/tiny\", revision=\"v1.0\")\n"
             "ds = load_dataset('org/data')\n"
             "urllib.request.urlretrieve('https://example.org/w.bin', 'w.bin')\n"
             "net = torch.hub.load('pytorch/vision:v0.10.0', 'resnet18')\n"
             "local = AutoModel.from_pretrained('checkpoints/best')\n"
             "if __name__ == '__main__':\n    pass\n");
  write_file(d.path(), "checkpoints/best/config.json", "{}\n");
  const json assets = plan_for(d.path())["assets"];

  const json* tiny = find(assets, "org/tiny");
  ASSERT_NE(tiny, nullptr) << assets.dump(2);
  EXPECT_EQ((*tiny)["kind"], "hf_model");
  EXPECT_EQ((*tiny)["revision"], "v1.0");
  EXPECT_EQ((*tiny)["fetch"], true);
  EXPECT_EQ((*tiny)["from"], json::parse(R"([{"file":"train.py","line":4},{"file":"train.py","line":5}])"));

  const json* data = find(assets, "org/data");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ((*data)["kind"], "hf_dataset");
  EXPECT_EQ((*data)["revision"], "main");
  EXPECT_EQ((*data)["fetch"], true);

  const json* url = find(assets, "https://example.org/w.bin");
  ASSERT_NE(url, nullptr) << assets.dump(2);
  EXPECT_EQ((*url)["kind"], "url");
  EXPECT_EQ((*url)["fetch"], true);
  EXPECT_EQ((*url)["from"][0]["line"], 7);

  const json* hub = find(assets, "pytorch/vision");
  ASSERT_NE(hub, nullptr) << assets.dump(2);
  EXPECT_EQ((*hub)["kind"], "torch_hub");
  EXPECT_EQ((*hub)["revision"], "v0.10.0");
  EXPECT_EQ((*hub)["fetch"], false);
  EXPECT_THAT((*hub)["why_not"].get<std::string>(), ::testing::HasSubstr("torch.hub"));

  // Not a hub id: a directory of the repository. And a README link is listed, not fetched.
  const json* local = find(assets, "checkpoints/best");
  ASSERT_NE(local, nullptr) << assets.dump(2);
  EXPECT_EQ((*local)["fetch"], false);
  EXPECT_THAT((*local)["why_not"].get<std::string>(), ::testing::HasSubstr("path of the repository"));
  const json* linked = find(assets, "org/linked-model");
  ASSERT_NE(linked, nullptr) << assets.dump(2);
  EXPECT_EQ((*linked)["fetch"], false);
  EXPECT_EQ((*linked)["from"][0]["file"], "README.md");
}

TEST(PlanAssets, ARepositoryThatLoadsNothingHasNoAssets) {
  r2r::test::temp_dir d;
  write_file(d.path(), "README.md", "# x\n\n```bash\npython train.py\n```\n");
  write_file(d.path(), "train.py", "import torch\nif __name__ == '__main__':\n    print(torch.ones(1))\n");
  EXPECT_EQ(plan_for(d.path())["assets"], json::array());
}

}  // namespace
