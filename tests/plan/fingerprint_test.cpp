// SPDX-License-Identifier: MIT
// The fingerprint of each fixture repository, through the library (no git needed to scan).
#include "fixture_repos.hpp"

#include "../unit/test_support.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/planning/fingerprint.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace {

using namespace r2r::planning;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

fingerprint scan(void (*make)(const std::filesystem::path&), const r2r::test::temp_dir& dir) {
  make(dir.path());
  auto fp = scan_repository(dir.path(), builtin_knowledge());
  fp.commit = std::string(40, 'a');
  const auto violations = r2r::core::embedded_schema("fingerprint.schema.json")->validate(to_json(fp));
  EXPECT_TRUE(violations.empty()) << r2r::core::format_violation(violations.front());
  return fp;
}

const finding* find(const std::vector<finding>& v, const std::string& kind, const std::string& name = "") {
  auto it = std::find_if(v.begin(), v.end(),
                         [&](const finding& f) { return f.kind == kind && (name.empty() || f.name == name); });
  return it == v.end() ? nullptr : &*it;
}

const dependency* dep(const fingerprint& fp, const std::string& name) {
  auto it =
      std::find_if(fp.dependencies.begin(), fp.dependencies.end(), [&](const dependency& d) { return d.name == name; });
  return it == fp.dependencies.end() ? nullptr : &*it;
}

TEST(Fingerprint, TorchTrainingRepo) {
  r2r::test::temp_dir dir;
  const auto fp = scan(r2r::test::make_torch_training_repo, dir);
  EXPECT_THAT(fp.frameworks, Contains("torch"));
  EXPECT_EQ(fp.workload, "pytorch");
  // requirements with -r/-c includes, markers, extras, local versions, index URLs
  ASSERT_NE(dep(fp, "einops"), nullptr);
  EXPECT_EQ(dep(fp, "einops")->file, "requirements/base.txt");
  EXPECT_EQ(dep(fp, "einops")->line, 1);
  ASSERT_NE(dep(fp, "numpy"), nullptr);
  EXPECT_EQ(dep(fp, "torch")->local_version, "+cu118");
  EXPECT_EQ(dep(fp, "torch")->specifier, "==2.1.0");
  EXPECT_EQ(dep(fp, "transformers")->marker, "python_version >= \"3.8\"");
  EXPECT_THAT(dep(fp, "transformers")->extras, Contains("torch"));
  ASSERT_NE(find(fp.index_urls, "cuda_index"), nullptr);
  EXPECT_EQ(find(fp.index_urls, "cuda_index")->line, 2);
  // setup.py
  EXPECT_EQ(dep(fp, "pyyaml")->file, "setup.py");
  EXPECT_EQ(dep(fp, "pyyaml")->line, 11);
  ASSERT_NE(find(fp.kernels, "cuda_extension", "fused_attn_cuda"), nullptr);
  EXPECT_EQ(find(fp.kernels, "cuda_extension")->line, 13);
  EXPECT_NE(find(fp.kernels, "cuda_source", "csrc/attn.cu"), nullptr);
  EXPECT_NE(find(fp.kernels, "triton_jit"), nullptr);
  EXPECT_EQ(find(fp.kernels, "triton_jit")->line, 4);
  EXPECT_TRUE(fp.installable);
  // CUDA-only packages from the knowledge table
  EXPECT_NE(find(fp.cuda_packages, "rocm_build", "flash-attn"), nullptr);
  EXPECT_NE(find(fp.cuda_packages, "never", "nvidia-cublas-cu12"), nullptr);
  EXPECT_NE(find(fp.cuda_packages, "replace", "pynvml"), nullptr);
  // hazards with file and line
  ASSERT_NE(find(fp.hazards, "cudnn_setting", "benchmark"), nullptr);
  EXPECT_EQ(find(fp.hazards, "cudnn_setting")->file, "train.py");
  EXPECT_NE(find(fp.hazards, "torch_version_cuda"), nullptr);
  EXPECT_NE(find(fp.hazards, "cuda_home"), nullptr);
  EXPECT_NE(find(fp.hazards, "nvidia_smi"), nullptr);
  EXPECT_NE(find(fp.hazards, "warp_mask_32"), nullptr);
  // stdlib and local modules are not dependencies
  for (const std::string not_a_package : {"os", "sys", "json", "math", "argparse", "fusedattn"}) {
    EXPECT_THAT(fp.desired_packages, Not(Contains(not_a_package)));
  }
  EXPECT_THAT(fp.desired_packages, Contains("flash-attn"));
  EXPECT_THAT(fp.desired_packages, Contains("pyyaml"));  // `import yaml`
  EXPECT_EQ(fp.python.spec, ">=3.9");
  // entry points: --help is not runnable; continuation lines joined; classification by words
  bool help_rejected = false, train_found = false;
  for (const auto& e : fp.entry_points) {
    if (e.command == "python train.py --help") help_rejected = !e.runnable;
    if (e.source == "readme" && e.command.find("--epochs 3") != std::string::npos) {
      train_found = e.runnable && e.kind == "train" && e.line == 11;
    }
    if (e.command.find("observe_metrics") != std::string::npos) {
      EXPECT_NE(e.kind, "infer") << "'observe' is not 'serve'";
    }
  }
  EXPECT_TRUE(help_rejected);
  EXPECT_TRUE(train_found);
  // assets
  EXPECT_NE(find(fp.assets, "hf_dataset", "imagenet-1k/imagenet"), nullptr);
  EXPECT_NE(find(fp.assets, "hf_model", "bert-base-uncased/bert"), nullptr);
  ASSERT_EQ(fp.metrics.size(), 1u);
  EXPECT_EQ(fp.metrics[0].name, "accuracy");
  EXPECT_DOUBLE_EQ(fp.metrics[0].value, 81.2);
  EXPECT_TRUE(fp.problems.empty());
}

TEST(Fingerprint, JaxRepoFromEnvironmentYml) {
  r2r::test::temp_dir dir;
  const auto fp = scan(r2r::test::make_jax_repo, dir);
  EXPECT_THAT(fp.frameworks, Contains("jax"));
  EXPECT_THAT(fp.frameworks, Not(Contains("torch")));
  EXPECT_EQ(fp.workload, "jax");
  EXPECT_EQ(fp.python.preferred, "3.12");
  ASSERT_NE(dep(fp, "jax"), nullptr);
  EXPECT_EQ(dep(fp, "jax")->line, 10);
  EXPECT_EQ(dep(fp, "numpy")->specifier, "==1.26.*");
  EXPECT_NE(find(fp.hazards, "conda_cuda_package", "cudatoolkit"), nullptr);
}

TEST(Fingerprint, PoetryRepo) {
  r2r::test::temp_dir dir;
  const auto fp = scan(r2r::test::make_poetry_repo, dir);
  EXPECT_EQ(fp.build_system, "poetry");
  EXPECT_EQ(fp.python.spec, ">=3.10,<4.0");
  EXPECT_EQ(dep(fp, "torch")->specifier, ">=2.1,<3.0");
  EXPECT_EQ(dep(fp, "timm")->specifier, ">=0.9.2,<0.10");
  EXPECT_EQ(dep(fp, "timm")->line, 8);
  EXPECT_TRUE(dep(fp, "pytest")->optional);
  EXPECT_THAT(fp.desired_packages, Not(Contains("pytest")));
  bool accelerate = false;
  for (const auto& e : fp.entry_points) {
    if (e.launcher == "accelerate") accelerate = e.runnable && e.kind == "infer";
  }
  EXPECT_TRUE(accelerate);
}

// Found by review (the std::stoi pattern the region_edit fuzz target hit), confirmed with the
// pyproject fuzz target: a Poetry constraint's version components were read with
// std::stoi, so "^99999999999" threw out of the scanner (whose contract is never to throw for file
// content) and "^2147483647" overflowed int when the upper bound was computed.
TEST(Fingerprint, PoetryConstraintsWithHugeVersionComponents) {
  r2r::test::temp_dir dir;
  const auto fp = scan(
      [](const std::filesystem::path& r) {
        r2r::test::write_file(r, "pyproject.toml",
                              "[tool.poetry]\nname = \"x\"\n\n[tool.poetry.dependencies]\npython = \"^2147483647\"\n"
                              "torch = \"~1.99999999999999999999\"\nnumpy = \"^0.0.99999999999\"\n");
      },
      dir);
  EXPECT_EQ(fp.python.spec, ">=2147483647,<2147483648.0");
  EXPECT_EQ(dep(fp, "torch")->specifier, ">=1.99999999999999999999,<1.100000000000000000000");
  EXPECT_EQ(dep(fp, "numpy")->specifier, ">=0.0.99999999999,<0.0.100000000000");
}

// Found by review, confirmed with the readme_scan fuzz target: a README metric claim with a number too large for a
// double made std::stod throw out of the scanner. Such a claim is dropped; the others stay.
TEST(Fingerprint, ReadmeMetricTooLargeForADoubleIsDropped) {
  r2r::test::temp_dir dir;
  const auto fp = scan(
      [](const std::filesystem::path& r) {
        r2r::test::write_file(r, "README.md",
                              "# x\n\nAccuracy: 1" + std::string(400, '0') + "%\n\nIt reaches 76.1% top-1 accuracy.\n");
      },
      dir);
  ASSERT_EQ(fp.metrics.size(), 1u);
  EXPECT_EQ(fp.metrics[0].value, 76.1);
}

TEST(Fingerprint, VllmServer) {
  r2r::test::temp_dir dir;
  const auto fp = scan(r2r::test::make_vllm_server_repo, dir);
  EXPECT_EQ(fp.workload, "vllm");
  ASSERT_FALSE(fp.entry_points.empty());
  EXPECT_EQ(fp.entry_points[0].launcher, "vllm");
  EXPECT_EQ(fp.entry_points[0].kind, "infer");
  EXPECT_NE(find(fp.assets, "hf_model", "meta-llama/Llama-3.1-8B-Instruct"), nullptr);
  EXPECT_EQ(fp.metrics.size(), 2u);  // throughput and latency: two claims
}

TEST(Fingerprint, HelpOnlyAndNothingRunnable) {
  r2r::test::temp_dir a, b;
  const auto help = scan(r2r::test::make_help_only_repo, a);
  for (const auto& e : help.entry_points) {
    EXPECT_FALSE(e.runnable) << e.command;
  }
  EXPECT_FALSE(help.entry_points.empty());
  const auto none = scan(r2r::test::make_nothing_runnable_repo, b);
  for (const auto& e : none.entry_points) {
    EXPECT_FALSE(e.runnable) << e.command;
  }
}

TEST(Fingerprint, MalformedFilesAreProblemsWithFileAndLineAndTheScanGoesOn) {
  r2r::test::temp_dir dir;
  const auto fp = scan(r2r::test::make_malformed_repo, dir);
  auto problem_at = [&](const std::string& file) -> const finding* {
    for (const auto& p : fp.problems) {
      if (p.file == file) return &p;
    }
    return nullptr;
  };
  ASSERT_NE(problem_at("requirements.txt"), nullptr);
  EXPECT_EQ(problem_at("requirements.txt")->line, 3);
  ASSERT_NE(problem_at("pyproject.toml"), nullptr);
  EXPECT_GT(problem_at("pyproject.toml")->line, 0);
  EXPECT_THAT(problem_at("pyproject.toml")->detail, HasSubstr("TOML"));
  ASSERT_NE(problem_at("environment.yml"), nullptr);
  EXPECT_EQ(problem_at("environment.yml")->line, 4);
  ASSERT_NE(problem_at("setup.cfg"), nullptr);
  EXPECT_EQ(problem_at("setup.cfg")->line, 4);
  EXPECT_NE(dep(fp, "einops"), nullptr);  // lines after the bad one are still read
  EXPECT_NE(dep(fp, "scipy"), nullptr);
}

}  // namespace
