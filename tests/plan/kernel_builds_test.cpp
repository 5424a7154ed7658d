// SPDX-License-Identifier: MIT
// kernel_builds in the fingerprint and the plan: multi-line setup.py extension calls, JIT
// load()/load_inline(), @triton.jit functions and the project's own fused-rmsnorm example, each
// with kernel names and the file:line that defines them.
#include "fixture_repos.hpp"

#include "../unit/test_support.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/planning/fingerprint.hpp>
#include <r2r/planning/plan.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace {

using namespace r2r::planning;
using nlohmann::json;
using r2r::test::write_file;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

fingerprint scan_dir(const std::filesystem::path& root) {
  auto fp = scan_repository(root, builtin_knowledge());
  fp.commit = std::string(40, 'a');
  const auto violations = r2r::core::embedded_schema("fingerprint.schema.json")->validate(to_json(fp));
  EXPECT_TRUE(violations.empty()) << r2r::core::format_violation(violations.front());
  return fp;
}

json plan_of(const fingerprint& fp) {
  plan_inputs in;
  in.fp = &fp;
  in.arch = "gfx942";
  in.ranking = json::object();
  auto p = build_plan(in, builtin_knowledge());
  const auto violations = r2r::core::embedded_schema("plan.schema.json")->validate(p);
  EXPECT_TRUE(violations.empty()) << r2r::core::format_violation(violations.front());
  return p;
}

const kernel_build* build(const fingerprint& fp, const std::string& kind) {
  auto it = std::find_if(fp.kernel_builds.begin(), fp.kernel_builds.end(),
                         [&](const kernel_build& b) { return b.kind == kind; });
  return it == fp.kernel_builds.end() ? nullptr : &*it;
}

std::vector<std::string> names(const kernel_build& b) {
  std::vector<std::string> out;
  for (const auto& k : b.kernels) out.push_back(k.name + "@" + k.file + ":" + std::to_string(k.line));
  return out;
}

bool has_hazard(const json& plan, const std::string& kind) {
  for (const auto& h : plan["hazards"])
    if (h["kind"] == kind) return true;
  return false;
}

TEST(KernelBuilds, MultiLineCudaExtensionWithKeywordsListsAndHeaders) {
  r2r::test::temp_dir d;
  write_file(d.path(), "setup.py",
             "from setuptools import setup\n"
             "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
             "setup(\n"
             "    name='pkg',\n"
             "    ext_modules=[\n"
             "        CUDAExtension(\n"  // line 6
             "            name='pkg._ops',  # the module\n"
             "            sources=[\n"
             "                'csrc/ops.cpp',\n"
             "                \"csrc/ops_kernel.cu\",\n"
             "            ],\n"
             "        ),\n"
             "        CUDAExtension('pkg._other', ['csrc/other.cu'],\n"  // line 13
             "                      extra_compile_args={'nvcc': ['-O3']}),\n"
             "    ],\n"
             "    cmdclass={'build_ext': BuildExtension},\n"
             ")\n");
  write_file(d.path(), "csrc/ops.cpp", "#include \"ops.cuh\"\n");
  write_file(d.path(), "csrc/ops.cuh", "#pragma once\n__global__ void header_kernel(float* x) {}\n");
  write_file(d.path(), "csrc/ops_kernel.cu",
             "#include \"ops.cuh\"\n"
             "template <typename T>\n"
             "__global__ void __launch_bounds__(256) scale_kernel(T* x, int n) {}\n"  // line 3
             "// __global__ void commented_out(int) {}\n"
             "__global__\nvoid\nadd_kernel(float* a) {}\n");  // line 5
  write_file(d.path(), "csrc/other.cu", "static __global__ void other_kernel() {}\n");
  const auto fp = scan_dir(d.path());
  ASSERT_EQ(fp.kernel_builds.size(), 2u);
  const auto& ops = fp.kernel_builds[0];
  EXPECT_EQ(ops.kind, "cuda_extension");
  EXPECT_EQ(ops.name, "pkg._ops");
  EXPECT_EQ(ops.line, 6);
  EXPECT_THAT(ops.sources, ElementsAre("csrc/ops.cpp", "csrc/ops_kernel.cu"));
  EXPECT_THAT(ops.unresolved, IsEmpty());
  // Sources first, then the local headers they include.
  EXPECT_THAT(names(ops), ElementsAre("scale_kernel@csrc/ops_kernel.cu:3", "add_kernel@csrc/ops_kernel.cu:5",
                                      "header_kernel@csrc/ops.cuh:2"));
  EXPECT_EQ(fp.kernel_builds[1].name, "pkg._other");
  EXPECT_EQ(fp.kernel_builds[1].line, 13);
  EXPECT_THAT(names(fp.kernel_builds[1]), ElementsAre("other_kernel@csrc/other.cu:1"));

  const auto plan = plan_of(fp);
  ASSERT_EQ(plan["kernel_builds"].size(), 2u);
  const auto& kb = plan["kernel_builds"][0];
  EXPECT_EQ(kb["kind"], "setup_extension");
  EXPECT_EQ(kb["module"], "pkg._ops");
  EXPECT_EQ(kb["step"], "build-repository-extensions");
  EXPECT_EQ(kb["kernels"], json({"scale_kernel", "add_kernel", "header_kernel"}));
  EXPECT_EQ(kb["kernel_sites"][0], json({{"name", "scale_kernel"}, {"file", "csrc/ops_kernel.cu"}, {"line", 3}}));
  EXPECT_FALSE(has_hazard(plan, "unbuilt_cuda_sources"));
}

TEST(KernelBuilds, TheFusedRmsnormExamplePlansItsBuildAndKernel) {
  const auto fp = scan_dir(r2r::test::env_path("R2R_SOURCE_DIR") / "examples/fused-rmsnorm");
  const auto* b = build(fp, "cuda_extension");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name, "fused_rmsnorm._C");
  EXPECT_EQ(b->file, "setup.py");
  EXPECT_EQ(b->line, 9);
  EXPECT_THAT(names(*b), ElementsAre("rmsnorm_forward_kernel@csrc/rmsnorm_kernel.cu:14"));
  const auto plan = plan_of(fp);
  ASSERT_EQ(plan["kernel_builds"].size(), 1u);
  EXPECT_EQ(plan["kernel_builds"][0]["name"], "fused_rmsnorm._C");
  EXPECT_EQ(plan["kernel_builds"][0]["kernels"], json({"rmsnorm_forward_kernel"}));
  EXPECT_FALSE(has_hazard(plan, "unbuilt_cuda_sources"));
  bool step = false;
  for (const auto& s : plan["install_steps"]) step = step || s["id"] == "build-repository-extensions";
  EXPECT_TRUE(step);
}

TEST(KernelBuilds, JitLoadAndLoadInline) {
  r2r::test::temp_dir d;
  write_file(d.path(), "model/ext.py",
             "import os\n"
             "from torch.utils.cpp_extension import load, load_inline\n"
             "here = os.path.dirname(__file__)\n"
             "_ext = load(\n"  // line 4
             "    name='fused_gelu',\n"
             "    sources=[os.path.join(here, 'kernels', 'gelu.cu'),\n"
             "             os.path.join(here, 'kernels', 'gelu.cpp')],\n"
             "    verbose=False)\n"
             "CUDA_SRC = '''\n"  // line 9
             "#include <cuda_runtime.h>\n"
             "__global__ void inline_square(float* x) { x[0] *= x[0]; }\n"  // line 11
             "'''\n"
             "sq = load_inline(name='square', cpp_sources='', cuda_sources=CUDA_SRC,\n"  // line 13
             "                 functions=['square'])\n"
             "state = torch.load('ckpt.pt', ['cpu'])\n"
             "import torch.utils.cpp_extension as cx\n"
             "_b = cx.load('other', ['kernels/gelu.cu'])\n");
  write_file(d.path(), "model/kernels/gelu.cu", "\n__global__ void gelu_fwd(float* x) {}\n");
  write_file(d.path(), "model/kernels/gelu.cpp", "int x;\n");
  const auto fp = scan_dir(d.path());
  ASSERT_EQ(fp.kernel_builds.size(), 3u);        // torch.load(...) is not one
  EXPECT_EQ(fp.kernel_builds[2].name, "other");  // through an aliased module: cx.load(name, [sources])
  EXPECT_THAT(names(fp.kernel_builds[2]), ElementsAre("gelu_fwd@model/kernels/gelu.cu:2"));
  const auto* load = build(fp, "jit_load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->name, "fused_gelu");
  EXPECT_EQ(load->line, 4);
  EXPECT_THAT(load->sources, ElementsAre("model/kernels/gelu.cu", "model/kernels/gelu.cpp"));
  EXPECT_THAT(names(*load), ElementsAre("gelu_fwd@model/kernels/gelu.cu:2"));
  const auto* inl = build(fp, "jit_load_inline");
  ASSERT_NE(inl, nullptr);
  EXPECT_EQ(inl->name, "square");
  EXPECT_EQ(inl->line, 13);
  EXPECT_THAT(names(*inl), ElementsAre("inline_square@model/ext.py:11"));
  const auto plan = plan_of(fp);
  ASSERT_EQ(plan["kernel_builds"].size(), 3u);
  EXPECT_EQ(plan["kernel_builds"][0]["kind"], "jit");
  EXPECT_EQ(plan["kernel_builds"][0]["kernels"], json({"gelu_fwd"}));
  EXPECT_TRUE(plan["kernel_builds"][0]["step"].is_null());
  EXPECT_FALSE(has_hazard(plan, "unbuilt_cuda_sources"));
}

TEST(KernelBuilds, TritonJitFunctionNamesUnderStackedDecorators) {
  r2r::test::temp_dir d;
  write_file(d.path(), "ops/attn.py",
             "import triton\n"
             "import triton.language as tl\n"
             "@triton.autotune(\n"  // line 3
             "    configs=[triton.Config({'BLOCK': 64})],\n"
             "    key=['n'],\n"
             ")\n"
             "@triton.jit\n"
             "def _attn_fwd(q, k, v, n, BLOCK: tl.constexpr):\n"  // line 8
             "    pass\n"
             "\n"
             "def helper(x):\n"
             "    return x\n"
             "\n"
             "@triton.jit\n"
             "def _rms(x):\n"  // line 15
             "    pass\n");
  const auto fp = scan_dir(d.path());
  const auto* b = build(fp, "triton");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name, "ops/attn.py");
  EXPECT_EQ(b->line, 3);
  EXPECT_THAT(names(*b), ElementsAre("_attn_fwd@ops/attn.py:8", "_rms@ops/attn.py:15"));
  const auto plan = plan_of(fp);
  ASSERT_EQ(plan["kernel_builds"].size(), 1u);
  EXPECT_EQ(plan["kernel_builds"][0]["kind"], "triton");
  EXPECT_EQ(plan["kernel_builds"][0]["module"], "ops.attn");
  EXPECT_EQ(plan["kernel_builds"][0]["kernels"], json({"_attn_fwd", "_rms"}));
}

TEST(KernelBuilds, CudaSourcesNoBuildCompilesAreNamedInTheHazard) {
  r2r::test::temp_dir d;
  write_file(d.path(), "setup.py",
             "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
             "setup(name='p', ext_modules=[CUDAExtension(name='p._C', sources=['csrc/a.cu'])])\n");
  write_file(d.path(), "csrc/a.cu", "__global__ void a_kernel() {}\n");
  write_file(d.path(), "tools/standalone.cu", "__global__ void lonely() {}\nint main() {}\n");
  const auto plan = plan_of(scan_dir(d.path()));
  bool named = false;
  for (const auto& h : plan["hazards"])
    named = named || (h["kind"] == "unbuilt_cuda_sources" &&
                      h["detail"].get<std::string>().find("tools/standalone.cu") != std::string::npos &&
                      h["detail"].get<std::string>().find("csrc/a.cu") == std::string::npos);
  EXPECT_TRUE(named) << plan["hazards"].dump();
}

TEST(KernelBuilds, UnclosedExtensionCallIsAProblemNotACrash) {
  r2r::test::temp_dir d;
  write_file(d.path(), "setup.py", "from torch.utils.cpp_extension import CUDAExtension\nCUDAExtension(name='x',\n");
  const auto fp = scan_dir(d.path());
  EXPECT_TRUE(fp.kernel_builds.empty());
  bool problem = false;
  for (const auto& p : fp.problems)
    problem = problem || (p.line == 2 && p.detail.find("never closed") != std::string::npos);
  EXPECT_TRUE(problem);
}

}  // namespace
