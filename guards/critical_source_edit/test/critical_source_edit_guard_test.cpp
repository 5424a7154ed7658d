// SPDX-License-Identifier: MIT
// Unit tests of the critical-source grading and the guard (fake host, built-in and inline policies).
#include "critical_source_edit_guard.hpp"
#include "critical_rules.hpp"
#include "edit_commands.hpp"

#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::guard::critical_source_edit_guard;
using ::testing::HasSubstr;
namespace critical = r2r::plugins::guard::critical;

const nlohmann::json plan = {
    {"arch", "gfx942"},
    {"kernel_builds",
     {{{"kind", "setup_extension"}, {"name", "fused_dense_lib"}, {"file", "setup.py"}, {"line", 10}},
      {{"kind", "triton"}, {"name", "_fwd_kernel"}, {"file", "model/triton_ops.py"}, {"line", 3}}}},
    {"hazards",
     {{{"kind", "warp_size_32"},
       {"file", "csrc/ops.cpp"},
       {"line", 40},
       {"detail", "x"},
       {"severity", "warning"},
       {"action", "a"}}}}};

r2r::sdk::guard::check_request request(nlohmann::json action, int mode = 1) {
  return nlohmann::json{{"action", std::move(action)}, {"context", {{"mode", mode}, {"plan", plan}}}}
      .get<r2r::sdk::guard::check_request>();
}

std::string patch(const std::string& path, const std::string& removed, const std::string& added) {
  int r = 0;
  int a = 0;
  std::string body;
  for (const auto& l : r2r::plugins::guard::split_lines(removed)) body += "-" + l + "\n", ++r;
  for (const auto& l : r2r::plugins::guard::split_lines(added)) body += "+" + l + "\n", ++a;
  return "--- a/" + path + "\n+++ b/" + path + "\n@@ -1," + std::to_string(r) + " +1," + std::to_string(a) + " @@\n" +
         body;
}

class CriticalSourceEdit : public ::testing::Test {
 protected:
  r2r::sdk::testing::fake_host host;
  critical_source_edit_guard guard{critical_source_edit_guard::config{}, host.sdk_host()};

  r2r::sdk::guard::decision apply(const std::string& p, const std::string& reason, int mode = 1) {
    nlohmann::json a = {{"type", "apply_patch"}, {"patch", p}};
    if (!reason.empty()) a["reason"] = reason;
    return guard.check_action(request(a, mode));
  }
  r2r::sdk::guard::decision run(const std::string& command, const std::string& reason = "", int mode = 1) {
    nlohmann::json a = {{"type", "run"}, {"command", command}};
    if (!reason.empty()) a["reason"] = reason;
    return guard.check_action(request(a, mode));
  }
};

TEST(CriticalRules, WhichFilesAreCritical) {
  const auto facts = critical::facts_of(plan);
  EXPECT_EQ(critical::critical_kind("csrc/attn.cu", {}, facts), "kernel source");
  EXPECT_EQ(critical::critical_kind("k.hip", {}, facts), "kernel source");
  EXPECT_EQ(critical::critical_kind("csrc/ops.cpp", {}, facts), "kernel source");
  EXPECT_EQ(critical::critical_kind("model/triton_ops.py", {}, facts), "kernel source");
  EXPECT_EQ(critical::critical_kind("src/x.cpp", {"__global__ void k() {}"}, facts), "kernel source");
  EXPECT_EQ(critical::critical_kind("src/x.cpp", {"int main() {}"}, facts), "");
  EXPECT_EQ(critical::critical_kind("setup.py", {}, facts), "extension build file");
  EXPECT_EQ(critical::critical_kind("cmake/hip.cmake", {}, facts), "extension build file");
  EXPECT_EQ(critical::critical_kind("pyproject.toml", {"[build-system]"}, facts), "extension build file");
  EXPECT_EQ(critical::critical_kind("pyproject.toml", {"version = \"1\""}, facts), "");
  EXPECT_EQ(critical::critical_kind("m/llama.py", {"from flash_attn import flash_attn_func"}, facts), "attention code");
  EXPECT_EQ(critical::critical_kind("train.py", {"import torch"}, facts), "");
  EXPECT_TRUE(critical::accelerator_module("flash_attn.ops.triton", facts));
  EXPECT_TRUE(critical::accelerator_module("mypkg._C", facts));
  EXPECT_TRUE(critical::accelerator_module("fused_dense_lib", facts));
  EXPECT_FALSE(critical::accelerator_module("torch.cuda.amp", facts));
  EXPECT_FALSE(critical::accelerator_module("numpy", facts));
}

TEST(CriticalRules, SedScriptsBecomeRemovedAndAddedLines) {
  const auto cmds = r2r::shell::analyze("sed -i 's/^from flash_attn import/# &/' m/a.py");
  const auto edits = critical::edits_of(cmds.at(0));
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].path, "m/a.py");
  ASSERT_EQ(edits[0].change.added.size(), 1u);
  EXPECT_EQ(edits[0].change.added[0], "# from flash_attn import");
  const auto del = critical::edits_of(r2r::shell::analyze("sed -i '/import flash_attn/d' a.py").at(0));
  EXPECT_EQ(del.at(0).change.removed.at(0), "import flash_attn");
  const auto out = critical::edits_of(r2r::shell::analyze("cat > csrc/k.cu <<EOF").at(0));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].how, critical::command_edit::kind::overwrite);
}

TEST_F(CriticalSourceEdit, HipifyRenamesAreAPortWithAReason) {
  const std::string p = patch("csrc/attn.cu", "#include <cuda_runtime.h>\n  kernel<<<grid, block, 0, stream>>>(x);",
                              "#include <hip/hip_runtime.h>\n  hipLaunchKernelGGL(kernel, grid, block, 0, stream, x);");
  const auto no_reason = apply(p, "");
  EXPECT_EQ(no_reason.verdict, "deny");
  EXPECT_THAT(no_reason.unlock, HasSubstr("reason"));
  const auto d = apply(p, "hipify: CUDA runtime names to HIP, kernels kept", 2);
  EXPECT_EQ(d.verdict, "allow");
  ASSERT_EQ(d.ledger.size(), 1u);
  EXPECT_EQ(d.ledger[0].component, "csrc/attn.cu");
  EXPECT_EQ(d.ledger[0].level, "D1");
  EXPECT_EQ(run("sed -i 's/cudaMalloc/hipMalloc/g' csrc/attn.cu", "hipify").verdict, "allow");
  EXPECT_EQ(run("mv csrc/attn.cu csrc/attn.hip", "hip file name").ledger.at(0).level, "D1");
}

TEST_F(CriticalSourceEdit, EditsOfOrdinaryFilesAreNotGraded) {
  const auto d = apply(patch("train.py", "lr = 0.1", "lr = 0.2"), "");
  EXPECT_EQ(d.verdict, "allow");
  EXPECT_TRUE(d.ledger.empty());
  EXPECT_EQ(run("sed -i 's/0.1/0.2/' train.py").verdict, "allow");
  EXPECT_EQ(run("echo hi > notes.txt && rm -f out.log").verdict, "allow");
}

TEST_F(CriticalSourceEdit, StubsImportsAndNotImplementedAreDeniedEvenWithAReason) {
  for (const auto& p :
       {patch("model/layers.py", "def fused_gelu(x):\n    return fused_dense_lib.gelu(x)",
              "def fused_gelu(x):\n    pass"),
        patch("model/layers.py", "import fused_dense_lib", "# import fused_dense_lib"),
        patch("model/layers.py", "    out = fused_dense_lib.linear(x)", "    raise NotImplementedError('no ROCm')"),
        patch("setup.py", "    ext_modules=[CUDAExtension('fused_dense_lib', ['csrc/fused.cu'])],",
              "    ext_modules=[],")}) {
    const auto d = apply(p, "it does not build on ROCm");
    EXPECT_EQ(d.verdict, "deny") << p;
    EXPECT_THAT(d.reason, HasSubstr("acceleration_disabled")) << p;
    EXPECT_THAT(d.unlock, HasSubstr("components.acceleration_disabled.mode1")) << p;
  }
}

TEST_F(CriticalSourceEdit, KernelReplacedIsRecordedInMode1AndDeniedInMode2) {
  const std::string p = patch("csrc/fused.cu", "__global__ void gelu_kernel(float* x) { x[0] = 1; }", "");
  const auto m1 = apply(p, "replaced by torch.nn.functional.gelu", 1);
  EXPECT_EQ(m1.verdict, "allow");
  ASSERT_EQ(m1.ledger.size(), 1u);
  EXPECT_EQ(m1.ledger[0].level, "D3");
  EXPECT_EQ(apply(p, "replaced by torch.nn.functional.gelu", 2).verdict, "deny");
  const std::string launch = patch("model/ops.py", "    y = torch.ops.mylib.gelu(x)", "    y = F.gelu(x)");
  EXPECT_EQ(apply(launch, "framework op", 1).ledger.at(0).level, "D3");
}

TEST_F(CriticalSourceEdit, AttentionFallbackIsD2) {
  const std::string p = patch("model/llama.py", "        out = flash_attn_func(q, k, v, causal=True)",
                              "        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)");
  const auto d = apply(p, "flash-attn has no gfx1100 build", 1);
  EXPECT_EQ(d.verdict, "allow");
  EXPECT_EQ(d.ledger.at(0).level, "D2");
  EXPECT_EQ(apply(p, "flash-attn has no gfx1100 build", 2).verdict, "deny");
}

TEST_F(CriticalSourceEdit, WriteFileIsComparedWithWhatWasRead) {
  const std::string before =
      "from flash_attn import flash_attn_func\n\ndef attn(q, k, v):\n    return flash_attn_func(q, k, v)\n";
  guard.observe(nlohmann::json{{"action", {{"type", "read_file"}, {"path", "model/attn.py"}}},
                               {"observation", {{"exit_code", 0}, {"stdout", before}}}}
                    .get<r2r::sdk::guard::observe_request>());
  const std::string stubbed = "from flash_attn import flash_attn_func\n\ndef attn(q, k, v):\n    pass\n";
  const auto d = guard.check_action(
      request({{"type", "write_file"}, {"path", "model/attn.py"}, {"content", stubbed}, {"reason", "x"}}));
  EXPECT_EQ(d.verdict, "deny");
  EXPECT_THAT(d.reason, HasSubstr("stub"));
  // Unknown baseline: the new content alone shows the stub in an attention file.
  const auto unseen = guard.check_action(
      request({{"type", "write_file"}, {"path", "model/other_attn.py"}, {"content", stubbed}, {"reason", "x"}}));
  EXPECT_EQ(unseen.verdict, "deny");
  EXPECT_THAT(unseen.reason, HasSubstr("stubbed function attn"));
}

TEST_F(CriticalSourceEdit, CommandEditsOfCriticalFiles) {
  const auto sed = run("sed -i 's/^from flash_attn import/# &/' model/llama.py", "flash-attn missing");
  EXPECT_EQ(sed.verdict, "deny");
  EXPECT_THAT(sed.reason, HasSubstr("comments out"));
  EXPECT_EQ(run("cd /repo && sed -i '/import fused_dense_lib/d' model/layers.py", "r").verdict, "deny");
  const auto rm = run("rm -f csrc/fused.cu", "unused on ROCm", 1);
  EXPECT_EQ(rm.verdict, "allow");
  EXPECT_EQ(rm.ledger.at(0).level, "D3");
  EXPECT_EQ(run("rm -f csrc/fused.cu", "unused on ROCm", 2).verdict, "deny");
  EXPECT_EQ(run("truncate -s 0 setup.py", "r").verdict, "deny");
  for (const char* hidden : {"cat > csrc/fused.cu <<'EOF'\n__global__ void k(){}\nEOF", "echo '' | tee setup.py",
                             "python -c \"open('csrc/fused.cu','w').write('')\"", "cp /tmp/x.cpp csrc/fused.cu"}) {
    const auto d = run(hidden, "because");
    EXPECT_EQ(d.verdict, "deny") << hidden;
    EXPECT_THAT(d.unlock, HasSubstr("write_file or apply_patch")) << hidden;
  }
}

TEST_F(CriticalSourceEdit, APolicyMayAllowDisablingAcceleration) {
  critical_source_edit_guard lenient(
      {nlohmann::json{
           {"guard", "r2r.guard.critical-source-edit"},
           {"components",
            {{"acceleration_disabled", {{"level", "D4"}, {"default", "record"}, {"note", "Mode 1 smoke"}}}}}},
       1 << 20},
      host.sdk_host());
  const auto d = lenient.check_action(
      request({{"type", "apply_patch"},
               {"patch", patch("model/layers.py", "import fused_dense_lib", "# import fused_dense_lib")},
               {"reason", "extension has no ROCm port yet"}}));
  EXPECT_EQ(d.verdict, "allow");
  EXPECT_EQ(d.ledger.at(0).level, "D4");
  EXPECT_THAT(d.ledger.at(0).note, HasSubstr("Mode 1 smoke"));
  // Components the policy does not list are denied.
  EXPECT_EQ(
      lenient
          .check_action(request({{"type", "apply_patch"},
                                 {"patch", patch("csrc/a.cu", "#include <cuda.h>", "#include <hip/hip_runtime.h>")},
                                 {"reason", "hipify"}}))
          .verdict,
      "deny");
}

}  // namespace
