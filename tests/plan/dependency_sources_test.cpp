// SPDX-License-Identifier: MIT
// Issue 18: one fixture repository per place a repository declares its CUDA dependence (conda
// environment files, README install lines, pip-tools lock files, nested requirement files, imports),
// each planted dependency found with its file:line and scope; and the false positives that must not
// be found (a Python or text block, a comment that is not a lock file's provenance, a vendored
// toolkit's pins in the install).
#include "fixture_repos.hpp"

#include "../unit/test_support.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/planning/fingerprint.hpp>
#include <r2r/planning/plan.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace {

using namespace r2r::planning;
using r2r::test::write_file;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;

fingerprint scan(const std::function<void(const std::filesystem::path&)>& make, const r2r::test::temp_dir& dir) {
  make(dir.path());
  auto fp = scan_repository(dir.path(), builtin_knowledge());
  fp.commit = std::string(40, 'a');
  const auto violations = r2r::core::embedded_schema("fingerprint.schema.json")->validate(to_json(fp));
  EXPECT_TRUE(violations.empty()) << r2r::core::format_violation(violations.front());
  return fp;
}

/// The CUDA-package entry of `name` in `scope`, or null.
const finding* cuda(const fingerprint& fp, const std::string& name, const std::string& scope = "required") {
  for (const auto& f : fp.cuda_packages) {
    if (f.name == name && f.scope == scope) return &f;
  }
  return nullptr;
}

const dependency* dep(const fingerprint& fp, const std::string& name, const std::string& file) {
  for (const auto& d : fp.dependencies) {
    if (d.name == name && d.file == file) return &d;
  }
  return nullptr;
}

#define EXPECT_AT(f, file_, line_, scope_) \
  do {                                     \
    ASSERT_NE((f), nullptr);               \
    EXPECT_EQ((f)->file, (file_));         \
    EXPECT_EQ((f)->line, (line_));         \
    EXPECT_EQ((f)->scope, (scope_));       \
  } while (0)

TEST(DependencySources, CondaEnvironmentFiles) {
  r2r::test::temp_dir dir;
  const auto fp = scan(
      [](const std::filesystem::path& r) {
        write_file(r, "environment.yml",
                   "name: gs\n"                    // 1
                   "channels:\n"                   // 2
                   "  - pytorch\n"                 // 3
                   "  - nvidia\n"                  // 4
                   "  - conda-forge\n"             // 5
                   "dependencies:\n"               // 6
                   "  - python=3.10\n"             // 7
                   "  - pytorch=2.1\n"             // 8
                   "  - pytorch-cuda=12.1\n"       // 9
                   "  - nvidia::cuda-nvcc=12.1\n"  // 10
                   "  - cuda-toolkit\n"            // 11
                   "  - cuda-cccl\n"               // 12
                   "  - torchtriton\n"             // 13
                   "  - cudatoolkit=11.8\n"        // 14
                   "  - pip\n"                     // 15
                   "  - pip:\n"                    // 16
                   "      - xformers==0.0.22\n");  // 17
        // Named by the README whatever its name; a helper's own environment is optional.
        write_file(r, "README.md", "# gs\n\n```bash\nconda env create -f envs/gpu.yaml\n```\n");
        write_file(r, "envs/gpu.yaml", "dependencies:\n  - cuda-runtime=12.1\n");
        write_file(r, "tools/viz/environment.yml", "dependencies:\n  - cuda-nvrtc\n");
      },
      dir);
  EXPECT_AT(cuda(fp, "pytorch-cuda"), "environment.yml", 9, "required");
  EXPECT_EQ(cuda(fp, "pytorch-cuda")->kind, "never");
  EXPECT_EQ(cuda(fp, "pytorch-cuda")->source, "conda");
  EXPECT_AT(cuda(fp, "cuda-nvcc"), "environment.yml", 10, "required");
  EXPECT_AT(cuda(fp, "cuda-toolkit"), "environment.yml", 11, "required");
  EXPECT_AT(cuda(fp, "cuda-cccl"), "environment.yml", 12, "required");
  EXPECT_AT(cuda(fp, "torchtriton"), "environment.yml", 13, "required");
  EXPECT_EQ(cuda(fp, "torchtriton")->alternative, "pytorch-triton-rocm");
  EXPECT_AT(cuda(fp, "cudatoolkit"), "environment.yml", 14, "required");
  EXPECT_AT(cuda(fp, "xformers"), "environment.yml", 17, "required");
  EXPECT_AT(cuda(fp, "cuda-runtime"), "envs/gpu.yaml", 2, "required");
  EXPECT_AT(cuda(fp, "cuda-nvrtc", "optional"), "tools/viz/environment.yml", 2, "optional");
  std::vector<int> channel_lines;
  for (const auto& i : fp.index_urls) {
    if (i.kind == "cuda_channel") channel_lines.push_back(i.line);
  }
  EXPECT_THAT(channel_lines, ElementsAre(4, 10));  // the channels list and the nvidia:: prefix
  EXPECT_EQ(dep(fp, "torch", "environment.yml")->line, 8);
  EXPECT_TRUE(fp.problems.empty());
}

TEST(DependencySources, ReadmeInstallLines) {
  r2r::test::temp_dir dir;
  const auto fp = scan(
      [](const std::filesystem::path& r) {
        write_file(r, "README.md",
                   "# jaxproj\n"  // 1
                   "\n"           // 2
                   "```bash\n"    // 3
                   "pip install -U \"jax[cuda12]\" -f https://storage.googleapis.com/jax-releases/"
                   "jax_cuda_releases.html\n"                                        // 4
                   "conda install cudatoolkit=11.3 -c pytorch -y\n"                  // 5
                   "python -m pip install -r tools/gpu-reqs.txt && pip install .\n"  // 6
                   "```\n"                                                           // 7
                   "```python\n"                                                     // 8
                   "# pip install planted-python-block\n"                            // 9
                   "os.system('pip install planted-python-call')\n"                  // 10
                   "```\n"                                                           // 11
                   "```text\n"                                                       // 12
                   "pip install planted-text-block\n"                                // 13
                   "```\n"                                                           // 14
                   "Then run pip install planted-prose.\n");                         // 15
        write_file(r, "tools/gpu-reqs.txt", "faiss-gpu==1.7.2\n");
      },
      dir);
  const auto* jax = dep(fp, "jax", "README.md");
  ASSERT_NE(jax, nullptr);
  EXPECT_EQ(jax->line, 4);
  EXPECT_EQ(jax->source, "readme");
  EXPECT_THAT(jax->extras, ElementsAre("cuda12"));
  EXPECT_AT(cuda(fp, "jax[cuda12]"), "README.md", 4, "required");
  EXPECT_EQ(cuda(fp, "jax[cuda12]")->kind, "keep_image");
  EXPECT_AT(cuda(fp, "cudatoolkit"), "README.md", 5, "required");
  EXPECT_EQ(cuda(fp, "cudatoolkit")->source, "readme");
  // The file a README command names is read, and required, wherever it sits.
  EXPECT_AT(cuda(fp, "faiss-gpu"), "tools/gpu-reqs.txt", 1, "required");
  EXPECT_EQ(cuda(fp, "faiss-gpu")->kind, "degrade");
  EXPECT_EQ(cuda(fp, "faiss-gpu")->alternative, "faiss-cpu (degradation)");
  bool cuda_index = false;
  for (const auto& i : fp.index_urls) cuda_index = cuda_index || (i.kind == "cuda_index" && i.line == 4);
  EXPECT_TRUE(cuda_index);
  for (const auto& d : fp.dependencies) {
    EXPECT_EQ(d.name.rfind("planted", 0), std::string::npos) << d.name << " read from " << d.file << ":" << d.line;
  }
}

TEST(DependencySources, PipToolsLockFileKeepsViaProvenance) {
  r2r::test::temp_dir dir;
  const auto fp = scan(
      [](const std::filesystem::path& r) {
        write_file(r, "requirements.txt",
                   "#\n"                                                             // 1
                   "# This file is autogenerated by pip-compile with Python 3.10\n"  // 2
                   "# via nothing: a header comment is not provenance\n"             // 3
                   "#\n"                                                             // 4
                   "auto-gptq==0.7.1 \\\n"                                           // 5
                   "    --hash=sha256:0123abcd\n"                                    // 6
                   "    # via -r requirements.in\n"                                  // 7
                   "autoawq==0.2.5\n"                                                // 8
                   "    # via\n"                                                     // 9
                   "    #   -r requirements.in\n"                                    // 10
                   "    #   some-lib\n"                                              // 11
                   "aqlm[gpu]==1.1.6\n"                                              // 12
                   "eetq==1.0.0\n"                                                   // 13
                   "hqq==0.1.7\n"                                                    // 14
                   "cpm-kernels==1.0.11\n"                                           // 15
                   "faiss-gpu==1.7.2\n"                                              // 16
                   "xformers==0.0.23\n"                                              // 17
                   "vllm-flash-attn==2.5.9\n"                                        // 18
                   "nvidia-cublas-cu12==12.1.3.1\n"                                  // 19
                   "    # via torch\n"                                               // 20
                   "numpy==1.26.4\n");                                               // 21
      },
      dir);
  EXPECT_TRUE(fp.problems.empty()) << fp.problems.front().detail;
  const auto* gptq = dep(fp, "auto-gptq", "requirements.txt");
  ASSERT_NE(gptq, nullptr);
  EXPECT_EQ(gptq->specifier, "==0.7.1");
  EXPECT_THAT(gptq->via, ElementsAre("-r requirements.in"));
  EXPECT_THAT(dep(fp, "autoawq", "requirements.txt")->via, ElementsAre("-r requirements.in", "some-lib"));
  EXPECT_THAT(dep(fp, "nvidia-cublas-cu12", "requirements.txt")->via, ElementsAre("torch"));
  EXPECT_TRUE(dep(fp, "numpy", "requirements.txt")->via.empty());
  const std::pair<const char*, int> planted[] = {{"auto-gptq", 5},
                                                 {"autoawq", 8},
                                                 {"aqlm[gpu]", 12},
                                                 {"eetq", 13},
                                                 {"hqq", 14},
                                                 {"cpm-kernels", 15},
                                                 {"faiss-gpu", 16},
                                                 {"xformers", 17},
                                                 {"vllm-flash-attn", 18},
                                                 {"nvidia-cublas-cu12", 19}};
  for (const auto& [name, line] : planted) {
    SCOPED_TRACE(name);
    EXPECT_AT(cuda(fp, name), "requirements.txt", line, "required");
    EXPECT_EQ(cuda(fp, name)->source, "requirements");
  }
  EXPECT_EQ(cuda(fp, "eetq")->kind, "no_rocm");
  EXPECT_EQ(cuda(fp, "numpy"), nullptr);
}

TEST(DependencySources, NestedRequirementFilesCarryTheirScope) {
  r2r::test::temp_dir dir;
  const auto fp = scan(
      [](const std::filesystem::path& r) {
        write_file(r, "requirements.txt", "torch\n-r tools/base.txt\n");
        write_file(r, "tools/base.txt", "bitsandbytes>=0.41\n");
        write_file(r, "requirements-dev.txt", "pytest\nflash-attn\n");
        write_file(r, "third_party/toolkit/requirements/gpu.txt", "# kernels\nxformers\n");
        write_file(r, "libs/mykit/setup.py", "from setuptools import setup\nsetup(name='mykit')\n");
        write_file(r, "libs/mykit/requirements.txt", "faiss-gpu\n");
        write_file(r, "examples/demo/requirements.txt", "cupy-cuda12x\n");
      },
      dir);
  EXPECT_AT(cuda(fp, "bitsandbytes"), "tools/base.txt", 1, "required");  // included by a required file
  EXPECT_AT(cuda(fp, "flash-attn", "optional"), "requirements-dev.txt", 2, "optional");
  EXPECT_AT(cuda(fp, "xformers", "vendored"), "third_party/toolkit/requirements/gpu.txt", 2, "vendored");
  EXPECT_AT(cuda(fp, "faiss-gpu", "vendored"), "libs/mykit/requirements.txt", 1, "vendored");
  EXPECT_AT(cuda(fp, "cupy-cuda12x", "optional"), "examples/demo/requirements.txt", 1, "optional");
  EXPECT_EQ(dep(fp, "torch", "requirements.txt")->scope, "required");
  EXPECT_EQ(dep(fp, "pytest", "requirements-dev.txt")->scope, "optional");
  // Reported, not installed: neither optional nor vendored packages are in the desired set.
  EXPECT_THAT(fp.desired_packages, Contains("bitsandbytes"));
  for (const char* p : {"pytest", "flash-attn", "xformers", "faiss-gpu", "cupy-cuda12x"}) {
    EXPECT_THAT(fp.desired_packages, Not(Contains(p)));
  }
}

TEST(DependencySources, ImportsOfCudaOnlyModulesNoFileDeclares) {
  r2r::test::temp_dir dir;
  const auto fp = scan(
      [](const std::filesystem::path& r) {
        write_file(r, "model.py",
                   "import xformers.ops as xops\n"         // 1
                   "import tinycudann as tcnn\n"           // 2
                   "from nvdiffrast import torch as dr\n"  // 3
                   "import bitsandbytes\n");               // 4: declared below, so not an import finding
        write_file(r, "requirements.txt", "bitsandbytes\n");
        write_file(r, "third_party/render/raster.py", "import nvdiffrast.torch\n");
      },
      dir);
  EXPECT_AT(cuda(fp, "xformers"), "model.py", 1, "required");
  EXPECT_EQ(cuda(fp, "xformers")->source, "import");
  EXPECT_AT(cuda(fp, "tinycudann"), "model.py", 2, "required");
  EXPECT_EQ(cuda(fp, "tinycudann")->kind, "no_rocm");
  EXPECT_AT(cuda(fp, "nvdiffrast"), "model.py", 3, "required");
  EXPECT_EQ(cuda(fp, "bitsandbytes")->source, "requirements");
  EXPECT_EQ(cuda(fp, "bitsandbytes")->file, "requirements.txt");
}

TEST(DependencySources, PlanDropsCudaExtrasVendoredPinsAndRecordsDegradations) {
  r2r::test::temp_dir dir;
  const auto fp = scan(
      [](const std::filesystem::path& r) {
        write_file(r, "requirements.txt", "jax[cuda12]>=0.4\nfaiss-gpu\neinops\n");
        write_file(r, "third_party/kit/requirements.txt", "planted-vendored-pin\n");
        write_file(r, "model.py", "import tinycudann\n");
      },
      dir);
  plan_inputs in;
  in.fp = &fp;
  in.arch = "gfx942";
  in.ranking = {{"candidates", nlohmann::json::array()}};
  in.base_image_override = "rocm/jax:latest";
  const auto plan = build_plan(in, builtin_knowledge());
  const std::string text = plan.dump();
  const std::string steps = plan.at("install_steps").dump();
  EXPECT_EQ(text.find("planted-vendored-pin"), std::string::npos);
  EXPECT_EQ(steps.find("cuda12"), std::string::npos) << "the CUDA extra must not be installed: " << steps;
  bool degradation = false, extra = false, no_rocm = false;
  for (const auto& h : plan.at("hazards")) {
    degradation = degradation || (h.at("kind") == "degradation" && h.at("severity") == "warning");
    extra = extra || h.at("kind") == "cuda_extra";
    no_rocm = no_rocm || (h.at("kind") == "no_rocm_build" && h.at("file") == "model.py" && h.at("line") == 1);
  }
  EXPECT_TRUE(degradation);
  EXPECT_TRUE(extra);
  EXPECT_TRUE(no_rocm);
  EXPECT_NE(steps.find("pip install faiss-cpu"), std::string::npos);
  const auto violations = r2r::core::embedded_schema("plan.schema.json")->validate(plan);
  EXPECT_TRUE(violations.empty()) << r2r::core::format_violation(violations.front());
}

}  // namespace
