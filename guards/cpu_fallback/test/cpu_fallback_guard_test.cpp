// SPDX-License-Identifier: MIT
// Unit tests of the guard logic, without loading the library (fake host).
#include "cpu_fallback_guard.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::guard::cpu_fallback_guard;
using ::testing::HasSubstr;

r2r::sdk::guard::check_request run(const std::string& command) {
  return nlohmann::json{{"action", {{"type", "run"}, {"command", command}}}}.get<r2r::sdk::guard::check_request>();
}

class CpuFallbackGuard : public ::testing::Test {
 protected:
  r2r::sdk::testing::fake_host host;
  cpu_fallback_guard guard{cpu_fallback_guard::config{}, host.sdk_host()};
};

TEST_F(CpuFallbackGuard, DeniesEmptiedVisibleDevicesInEverySpelling) {
  for (const char* command : {"CUDA_VISIBLE_DEVICES= python train.py",
                              "export CUDA_VISIBLE_DEVICES=\"\" && python t.py", "HIP_VISIBLE_DEVICES=-1 python t.py",
                              "env ROCR_VISIBLE_DEVICES='' ./run.sh", "cd x; CUDA_VISIBLE_DEVICES=;python a.py"}) {
    const auto d = guard.check_action(run(command));
    EXPECT_EQ(d.verdict, "deny") << command;
    EXPECT_THAT(d.reason, HasSubstr("VISIBLE_DEVICES")) << command;
    EXPECT_FALSE(d.unlock.empty());
  }
}

TEST_F(CpuFallbackGuard, AllowsPinningOneGpu) {
  for (const char* command : {"HIP_VISIBLE_DEVICES=0 python train.py", "CUDA_VISIBLE_DEVICES=1,2 torchrun x.py",
                              "python train.py --device cuda", "python eval.py --cpu-threads 4"}) {
    EXPECT_EQ(guard.check_action(run(command)).verdict, "allow") << command;
  }
}

TEST_F(CpuFallbackGuard, DeniesCpuFlags) {
  for (const char* command : {"python train.py --cpu", "python train.py --use_cpu", "python main.py --device cpu",
                              "python main.py --device=cpu", "python x.py --no-cuda"}) {
    EXPECT_EQ(guard.check_action(run(command)).verdict, "deny") << command;
  }
}

TEST_F(CpuFallbackGuard, DeniesCpuDeviceInWrittenCodeAndPatches) {
  auto write =
      nlohmann::json{{"action", {{"type", "write_file"}, {"path", "t.py"}, {"content", "x = 1\ndevice = 'cpu'\n"}}}}
          .get<r2r::sdk::guard::check_request>();
  const auto d = guard.check_action(write);
  EXPECT_EQ(d.verdict, "deny");
  EXPECT_THAT(d.reason, HasSubstr("device = 'cpu'"));

  const std::string patch =
      "--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-dev = torch.device('cuda')\n+dev = torch.device('cpu')\n";
  auto p =
      nlohmann::json{{"action", {{"type", "apply_patch"}, {"patch", patch}}}}.get<r2r::sdk::guard::check_request>();
  EXPECT_EQ(guard.check_action(p).verdict, "deny");

  // Removing a CPU selection is fine: only added lines count.
  const std::string fix =
      "--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-dev = torch.device('cpu')\n+dev = torch.device('cuda')\n";
  auto f = nlohmann::json{{"action", {{"type", "apply_patch"}, {"patch", fix}}}}.get<r2r::sdk::guard::check_request>();
  EXPECT_EQ(guard.check_action(f).verdict, "allow");
}

TEST_F(CpuFallbackGuard, DeniesMonkeyPatchedAvailability) {
  auto write =
      nlohmann::json{{"action", {{"type", "write_file"}, {"content", "torch.cuda.is_available = lambda: False"}}}}
          .get<r2r::sdk::guard::check_request>();
  EXPECT_EQ(guard.check_action(write).verdict, "deny");
}

TEST_F(CpuFallbackGuard, IgnoresActionTypesNotConfigured) {
  cpu_fallback_guard only_run(cpu_fallback_guard::config{{}, {"run"}, 1 << 20}, host.sdk_host());
  auto write = nlohmann::json{{"action", {{"type", "write_file"}, {"content", "device='cpu'"}}}}
                   .get<r2r::sdk::guard::check_request>();
  EXPECT_EQ(only_run.check_action(write).verdict, "allow");
  EXPECT_EQ(only_run.check_action(run("python t.py --cpu")).verdict, "deny");
}

TEST_F(CpuFallbackGuard, ExtraPatternsApplyAndInvalidOnesAreRejected) {
  cpu_fallback_guard extra(cpu_fallback_guard::config{{"--force[-_]cpu\\b"}, {"run"}, 1 << 20}, host.sdk_host());
  EXPECT_EQ(extra.check_action(run("python t.py --force-cpu")).verdict, "deny");
  try {
    cpu_fallback_guard bad(cpu_fallback_guard::config{{"([unclosed"}, {"run"}, 1 << 20}, host.sdk_host());
    FAIL() << "an invalid regex was accepted";
  } catch (const r2r::sdk::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("([unclosed"));
  }
}

TEST_F(CpuFallbackGuard, ObserveRecordsCpuFallbackMessages) {
  r2r::sdk::guard::observe_request r;
  r.action.type = "run_workload";
  r.observation.stdout_text = "epoch 1\nUsing device: cpu\n";
  r.observation.stderr_text = "UserWarning: CUDA not available, falling back to CPU\n";
  const auto out = guard.observe(r);
  ASSERT_GE(out.evidence.size(), 2u);
  for (const auto& e : out.evidence) EXPECT_EQ(e.kind, "cpu_fallback_signal");

  r2r::sdk::guard::observe_request clean;
  clean.observation.stdout_text = "Using device: cuda:0 (AMD Instinct MI300X)\n";
  EXPECT_TRUE(guard.observe(clean).evidence.empty());
}

TEST_F(CpuFallbackGuard, LogsDenialsThroughTheHost) {
  guard.check_action(run("python t.py --cpu"));
  bool logged = false;
  for (const auto& line : host.lines()) logged = logged || line.message.find("deny run") != std::string::npos;
  EXPECT_TRUE(logged);
}

}  // namespace
