// SPDX-License-Identifier: MIT
// accelerator_components, attack first: an extension that fell back to Python, kernels named like
// the repository's (or like flash attention) from other code, PyTorch SDPA named like flash
// attention, an agent-written Triton `_attn_fwd`, a forged probe / tracer record without the
// host's record of the build's object on the GPU; then the honest cases that must still pass.
#include <r2r/verify/accelerator_components.hpp>
#include <r2r/verify/mode1.hpp>
#include <r2r/verify/text.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::verifier;
using nlohmann::json;
using ::testing::HasSubstr;

const char* const ext_so = "/opt/venv/lib/python3.10/site-packages/fused_rmsnorm/_C.cpython-310-x86_64-linux-gnu.so";

json rmsnorm_plan() {
  return {{"workload", {{"command", "python train.py"}}},
          {"kernel_builds",
           {{{"kind", "setup_extension"},
             {"name", "fused_rmsnorm._C"},
             {"module", "fused_rmsnorm._C"},
             {"step", "build-repository-extensions"},
             {"note", ""},
             {"file", "setup.py"},
             {"line", 9},
             {"kernels", {"rmsnorm_forward_kernel"}}}}},
          {"hazards", json::array()}};
}

json flash_plan() {
  return {
      {"workload", {{"command", "python train.py"}}},
      {"kernel_builds", {{{"kind", "package"}, {"name", "flash-attn"}, {"step", "build-flash-attn"}, {"note", ""}}}},
      {"hazards", json::array()}};
}

loaded_code module_loaded(const std::string& module, const std::string& file) {
  loaded_code c;
  c.present = true;
  c.extensions.push_back({module, file});
  return c;
}

/// The host's record: each path mapped by GPU process 4242 of the workload.
/// Objects made before the run (ctime 100, run start 1000), as an honest build's are.
host_code mapped(std::initializer_list<std::string> paths) {
  host_code h;
  h.read = true;
  h.run_start = 1000;
  for (const auto& p : paths) {
    h.objects.emplace(p, 4242);
    h.ctimes.emplace(p, 100);
  }
  return h;
}
const host_code& no_host() {
  static const host_code h;
  return h;
}
const char* const torch_so = "/opt/venv/lib/python3.10/site-packages/torch/lib/libtorch_hip.so";
const char* const triton_so = "/opt/venv/lib/python3.10/site-packages/triton/_C/libtriton.so";
const char* const flash_so = "/opt/venv/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so";

component_verdict check(const json& plan, const std::vector<dispatched_kernel>& k, const std::vector<loaded_code>& code,
                        bool recorded = true, const host_code& host = no_host(),
                        const std::vector<std::string>& configured = {}) {
  return check_accelerator_components(components_from_plan(plan, configured), k, code, recorded, host,
                                      host_code_gap(host, {4242}));
}

const std::vector<dispatched_kernel> blas_only = {{"Cijk_Alik_Bljk_SB_MT64x64x16_MI32x32x2x1", 120, ""},
                                                  {"void at::native::vectorized_elementwise_kernel<4>(...)", 300, ""}};

// ------------------------------------------------------------------ attacks

TEST(AcceleratorComponents, ExtensionFellBackToPythonFailsWithD3) {
  // The module imported (the probe saw it) but only BLAS and elementwise kernels ran.
  const auto r = check(rmsnorm_plan(), blas_only, {module_loaded("fused_rmsnorm._C", ext_so)}, true);
  EXPECT_EQ(r.check.status, "fail");
  EXPECT_THAT(r.check.detail, HasSubstr("none of its kernels (rmsnorm_forward_kernel) was dispatched"));
  ASSERT_EQ(r.ledger.size(), 1u);
  EXPECT_EQ(r.ledger[0].level, "D3");
}

TEST(AcceleratorComponents, KernelNameAloneNeverPasses) {
  // A kernel with the planned name ran, but nothing says it came from the planned module.
  const std::vector<dispatched_kernel> k = {{"rmsnorm_forward_kernel(float const*, float*)", 10, ""}};
  auto r = check(rmsnorm_plan(), k, {}, true, mapped({torch_so}));
  EXPECT_EQ(r.check.status, "not_verified");
  EXPECT_THAT(r.check.detail, HasSubstr("no GPU process of the workload mapped module fused_rmsnorm._C"));
  // The probe saw a module, but another one (an agent's own library with the same kernel name).
  const char* const agent_so = "/workspace/my_norm.cpython-310-x86_64-linux-gnu.so";
  r = check(rmsnorm_plan(), k, {module_loaded("my_norm", agent_so)}, true, mapped({torch_so, agent_so}));
  EXPECT_EQ(r.check.status, "not_verified");
}

TEST(AcceleratorComponents, ForgedProbeRecordPlusRealGpuWorkNeverPasses) {
  // The attack of issue 13: the workload writes a probe "code" record naming the planned module
  // and a profiler entry with the planned kernel name, and does real work on the GPU with torch
  // (the host saw it busy, mapping torch's libraries) - but never loads the build's object.
  std::vector<dispatched_kernel> k = blas_only;
  k.push_back({"rmsnorm_forward_kernel(float const*, float*)", 40, ""});
  auto r = check(rmsnorm_plan(), k, {module_loaded("fused_rmsnorm._C", ext_so)}, true, mapped({torch_so}));
  EXPECT_EQ(r.check.status, "not_verified");
  EXPECT_THAT(r.check.detail, HasSubstr("the probe's record (probe: module fused_rmsnorm._C loaded from"));
  EXPECT_THAT(r.check.detail, HasSubstr("cannot pass a build alone"));
  // A forged tracer record naming the planned object does not help either.
  k.back().code_object = std::string("file://") + ext_so + "#offset=16384&size=9000";
  r = check(rmsnorm_plan(), k, {module_loaded("fused_rmsnorm._C", ext_so)}, true, mapped({torch_so}));
  EXPECT_EQ(r.check.status, "not_verified");
  // Without any host record at all the reason is the missing record.
  r = check(rmsnorm_plan(), k, {module_loaded("fused_rmsnorm._C", ext_so)}, true, no_host());
  EXPECT_EQ(r.check.status, "not_verified");
  EXPECT_THAT(r.check.detail, HasSubstr("recorded no mapped objects"));
}

TEST(AcceleratorComponents, AFileWrittenUnderTheModulesNameDuringTheRunNeverPasses) {
  // The workload writes any file at the module's path, maps it, forges the names and the probe.
  std::vector<dispatched_kernel> k = blas_only;
  k.push_back({"rmsnorm_forward_kernel(float const*, float*)", 40, ""});
  auto host = mapped({torch_so, ext_so});
  host.ctimes[ext_so] = 1003;  // written three seconds into the run
  auto r = check(rmsnorm_plan(), k, {module_loaded("fused_rmsnorm._C", ext_so)}, true, host);
  EXPECT_EQ(r.check.status, "not_verified");
  EXPECT_THAT(r.check.detail, HasSubstr("was written during the run (ctime 1003 >= start 1000)"));
  host.ctimes[ext_so] = -1;  // the host could not stat it
  r = check(rmsnorm_plan(), k, {module_loaded("fused_rmsnorm._C", ext_so)}, true, host);
  EXPECT_EQ(r.check.status, "not_verified");
  EXPECT_THAT(r.check.detail, HasSubstr("could not read the ctime"));
  // The same for flash attention's library and Triton's runtime.
  auto fh = mapped({flash_so});
  fh.ctimes[flash_so] = 1001;
  r = check(flash_plan(), {{"fmha_fwd_d128_fp16_batch_b128x128x32", 12, ""}},
            {module_loaded("flash_attn_2_cuda", flash_so)}, true, fh);
  EXPECT_EQ(r.check.status, "not_verified");
  EXPECT_THAT(r.check.detail, HasSubstr("written during the run"));
}

TEST(AcceleratorComponents, JitBuildCompiledDuringTheRunPasses) {
  json p = {{"kernel_builds",
             {{{"kind", "jit"}, {"name", "fused_norm"}, {"module", "fused_norm"}, {"kernels", {"norm_kernel"}}}}}};
  const char* const jit_so = "/tmp/r2r-workload.x/home/.cache/torch_extensions/py310_cu121/fused_norm/fused_norm.so";
  auto host = mapped({jit_so});
  host.ctimes[jit_so] = 1010;
  const auto r = check(p, {{"norm_kernel(float*)", 5, ""}}, {}, true, host);
  EXPECT_EQ(r.check.status, "pass") << r.check.detail;
  EXPECT_THAT(r.check.detail, HasSubstr("JIT-built during the run"));
}

TEST(AcceleratorComponents, SameNameFromAnotherCodeObjectFails) {
  const std::vector<dispatched_kernel> k = {
      {"rmsnorm_forward_kernel(float const*, float*)", 10, "file:///workspace/agent/libnorm.so#offset=8192&size=4096"}};
  const auto r = check(rmsnorm_plan(), k, {}, true);
  EXPECT_EQ(r.check.status, "fail");
  EXPECT_THAT(r.check.detail, HasSubstr("ran from another code object"));
}

TEST(AcceleratorComponents, NoKernelNamesPlannedForABuildIsNotVerified) {
  auto p = rmsnorm_plan();
  p["kernel_builds"][0].erase("kernels");
  const std::vector<dispatched_kernel> k = {{"rmsnorm_forward_kernel(float*)", 10, ""}};
  const auto r = check(p, k, {module_loaded("fused_rmsnorm._C", ext_so)}, true);
  EXPECT_EQ(r.check.status, "not_verified");
  EXPECT_THAT(r.check.detail, HasSubstr("the plan records no kernel names"));
}

TEST(AcceleratorComponents, NoKernelNamesRecordedIsNotVerified) {
  const auto r = check(rmsnorm_plan(), {}, {}, false);
  EXPECT_EQ(r.check.status, "not_verified");
}

TEST(AcceleratorComponents, SdpaNamedLikeFlashAttentionIsChargedD2) {
  // PyTorch's ROCm SDPA runs aotriton's attn_fwd and CK's fmha_fwd from libtorch: flash-like names.
  const std::vector<dispatched_kernel> k = {
      {"attn_fwd", 48, "file:///opt/venv/lib/python3.10/site-packages/torch/lib/libaotriton_v2.so#offset=0&size=9"},
      {"fmha_fwd_d128_fp16_batch_b128x128x32", 12,
       "file:///opt/venv/lib/python3.10/site-packages/torch/lib/libtorch_hip.so#offset=77&size=9"}};
  const auto r = check(flash_plan(), k, {module_loaded("torch._C", "/opt/venv/torch/_C.so")}, true);
  EXPECT_EQ(r.check.status, "fail");
  ASSERT_EQ(r.ledger.size(), 1u);
  EXPECT_EQ(r.ledger[0].component, "flash-attention");
  EXPECT_EQ(r.ledger[0].level, "D2");
}

TEST(AcceleratorComponents, FlashNamesWithoutTheFlashAttnLibraryNeverPass) {
  // No code-object record and no flash_attn module in the process: the names prove nothing.
  const std::vector<dispatched_kernel> k = {{"fmha_fwd_d128_fp16_batch_b128x128x32", 12, ""}};
  auto r = check(flash_plan(), k, {module_loaded("torch._C", "/opt/venv/torch/_C.so")}, true, mapped({torch_so}));
  EXPECT_EQ(r.check.status, "not_verified");
  // A forged probe record of the flash_attn module, with the library never mapped on the host.
  r = check(flash_plan(), k, {module_loaded("flash_attn_2_cuda", flash_so)}, true, mapped({torch_so}));
  EXPECT_EQ(r.check.status, "not_verified");
  EXPECT_THAT(r.check.detail, HasSubstr("no GPU process of the workload mapped the flash_attn library"));
}

TEST(AcceleratorComponents, MemoryEfficientSdpaFailsByNameWithD2) {
  const std::vector<dispatched_kernel> k = {{"void at::native::_efficient_attention_forward_kernel<float>(P)", 4, ""}};
  const auto r = check(flash_plan(), k, {}, true);
  EXPECT_EQ(r.check.status, "fail");
  ASSERT_EQ(r.ledger.size(), 1u);
  EXPECT_EQ(r.ledger[0].level, "D2");
}

TEST(AcceleratorComponents, AgentWrittenTritonAttnFwdIsNotFlashAttention) {
  // flash_attn is even imported, but the dispatched _attn_fwd is the agent's own Triton function.
  auto c = module_loaded("flash_attn_2_cuda", "/opt/venv/site-packages/flash_attn_2_cuda.cpython-310.so");
  c.triton.push_back({"_attn_fwd", "model.fast_attention", "/workspace/model/fast_attention.py", true});
  const std::vector<dispatched_kernel> k = {{"_attn_fwd", 96, ""}};
  const auto r = check(flash_plan(), k, {c}, true);
  EXPECT_EQ(r.check.status, "fail");
  EXPECT_THAT(r.check.detail, HasSubstr("model.fast_attention._attn_fwd"));
  ASSERT_EQ(r.ledger.size(), 1u);
  EXPECT_EQ(r.ledger[0].level, "D2");
}

TEST(AcceleratorComponents, TritonKernelFromAnotherFileOrNeverCompiledDoesNotPass) {
  json p = {{"kernel_builds",
             {{{"kind", "triton"},
               {"name", "ops/norm.py"},
               {"module", "ops.norm"},
               {"file", "ops/norm.py"},
               {"kernels", {"_rms"}}}}}};
  const std::vector<dispatched_kernel> k = {{"_rms_0d1d2d", 30, ""}};
  loaded_code c;
  c.present = true;
  c.triton.push_back({"_rms", "agent_ops", "/workspace/agent_ops.py", true});
  EXPECT_EQ(check(p, k, {c}, true, mapped({triton_so})).check.status, "not_verified");
  c.triton = {{"_rms", "ops.norm", "/workspace/ops/norm.py", false}};
  EXPECT_EQ(check(p, k, {c}, true, mapped({triton_so})).check.status, "not_verified");
  // The planned file's function, but Triton's runtime never mapped by a GPU process (a forged record).
  c.triton = {{"_rms", "ops.norm", "/workspace/ops/norm.py", true}};
  EXPECT_EQ(check(p, k, {c}, true, mapped({torch_so})).check.status, "not_verified");
}

TEST(AcceleratorComponents, ConfiguredNamesCanFailButNeverPass) {
  auto p = rmsnorm_plan();
  p["kernel_builds"] = json::array();
  EXPECT_EQ(check(p, blas_only, {}, true, no_host(), {"my_kernel"}).check.status, "fail");
  const std::vector<dispatched_kernel> k = {{"my_kernel(int)", 3, ""}};
  EXPECT_EQ(check(p, k, {}, true, mapped({"/w/my_kernel.so"}), {"my_kernel"}).check.status, "not_verified");
}

// ------------------------------------------------------------------ honest cases

TEST(AcceleratorComponents, ExtensionKernelWithItsObjectMappedOnTheGpuPasses) {
  std::vector<dispatched_kernel> k = blas_only;
  k.push_back({"rmsnorm_forward_kernel(float const*, float const*, float*, float*, int, int, float)", 40, ""});
  auto r = check(rmsnorm_plan(), k, {module_loaded("fused_rmsnorm._C", ext_so)}, true, mapped({torch_so, ext_so}));
  EXPECT_EQ(r.check.status, "pass") << r.check.detail;
  EXPECT_THAT(r.check.detail, HasSubstr("40 dispatches"));
  EXPECT_THAT(r.check.detail, HasSubstr("host: GPU process 4242 mapped"));
  EXPECT_TRUE(r.ledger.empty());
  // The probe is not needed when the host saw the object (a workload that unregistered the probe).
  r = check(rmsnorm_plan(), k, {}, true, mapped({ext_so}));
  EXPECT_EQ(r.check.status, "pass") << r.check.detail;
}

TEST(AcceleratorComponents, ExtensionKernelWithItsCodeObjectAndHostRecordPasses) {
  const std::vector<dispatched_kernel> k = {
      {"rmsnorm_forward_kernel(float*)", 40, std::string("file://") + ext_so + "#offset=16384&size=9000"}};
  const auto r = check(rmsnorm_plan(), k, {}, true, mapped({ext_so}));
  EXPECT_EQ(r.check.status, "pass") << r.check.detail;
  EXPECT_THAT(r.check.detail, HasSubstr("tracer: code object"));
}

TEST(AcceleratorComponents, FlashAttnLibraryKernelsPass) {
  const std::vector<dispatched_kernel> ck = {{"fmha_fwd_d128_fp16_batch_b128x128x32", 12, ""}};
  auto r = check(flash_plan(), ck, {module_loaded("flash_attn_2_cuda", flash_so)}, true, mapped({torch_so, flash_so}));
  EXPECT_EQ(r.check.status, "pass") << r.check.detail;
  loaded_code c;
  c.present = true;
  c.triton.push_back({"attn_fwd", "flash_attn.flash_attn_triton_amd.fwd_prefill",
                      "/opt/venv/site-packages/flash_attn/flash_attn_triton_amd/fwd_prefill.py", true});
  r = check(flash_plan(), {{"attn_fwd", 20, ""}}, {c}, true, mapped({torch_so, triton_so}));
  EXPECT_EQ(r.check.status, "pass") << r.check.detail;
}

TEST(AcceleratorComponents, PlannedTritonKernelCompiledFromItsFilePasses) {
  json p = {{"kernel_builds",
             {{{"kind", "triton"},
               {"name", "ops/norm.py"},
               {"module", "ops.norm"},
               {"file", "ops/norm.py"},
               {"kernels", {"_rms"}}}}}};
  loaded_code c;
  c.present = true;
  c.triton.push_back({"_rms", "ops.norm", "/workspace/ops/norm.py", true});
  const auto r = check(p, {{"_rms_0d1d2d", 30, ""}}, {c}, true, mapped({triton_so}));
  EXPECT_EQ(r.check.status, "pass") << r.check.detail;
}

TEST(AcceleratorComponents, NothingPlannedPasses) {
  const auto r = check(json::object(), {}, {}, false);
  EXPECT_EQ(r.check.status, "pass");
}

TEST(AcceleratorComponents, ProbeCodeObjectParses) {
  const auto c = parse_probe_code(
      R"({"pid": 5, "code": {"extensions": [{"module": "fused_rmsnorm._C", "file": "/x/_C.so"}],
          "triton": [{"name": "_rms", "module": "ops.norm", "file": "/w/ops/norm.py", "compiled": null}],
          "objects": ["/x/_C.so"]}})");
  EXPECT_TRUE(c.present);
  ASSERT_EQ(c.extensions.size(), 1u);
  ASSERT_EQ(c.triton.size(), 1u);
  EXPECT_FALSE(c.triton[0].compiled.has_value());
  EXPECT_FALSE(parse_probe_code(R"({"pid": 5})").present);
  EXPECT_THROW(parse_probe_code(R"({"pid": 5, "code": 3})"), parse_error);
}

}  // namespace
