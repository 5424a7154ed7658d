// SPDX-License-Identifier: MIT
// Unit tests of the guard logic, without loading the library (fake host).
#include "accelerator_swap_guard.hpp"
#include "switch_rules.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::guard::accelerator_swap_guard;
using ::testing::HasSubstr;

r2r::sdk::guard::check_request action(nlohmann::json a) {
  return nlohmann::json{{"action", std::move(a)}}.get<r2r::sdk::guard::check_request>();
}
r2r::sdk::guard::check_request run(const std::string& command) {
  return action({{"type", "run"}, {"command", command}});
}

class AcceleratorSwapGuard : public ::testing::Test {
 protected:
  r2r::sdk::testing::fake_host host;
  accelerator_swap_guard guard{accelerator_swap_guard::config{}, host.sdk_host()};

  void expect_deny(const std::string& command, const std::string& reason_part) {
    const auto d = guard.check_action(run(command));
    EXPECT_EQ(d.verdict, "deny") << command;
    EXPECT_THAT(d.reason, HasSubstr(reason_part)) << command;
    EXPECT_FALSE(d.unlock.empty()) << command;
  }
};

TEST_F(AcceleratorSwapGuard, DeniesFlashAttnInstallInEverySpelling) {
  for (const char* command :
       {"pip install flash_attn==2.5.8", "pip install flash-attn --no-build-isolation", "pip3 install Flash_Attn",
        "python -m pip install 'flash-attn>=2'", "python3.10 -m pip install -U FLASH-ATTN", "uv pip install flash.attn",
        "cd x && pip install git+https://github.com/Dao-AILab/flash-attention.git",
        "bash -c 'pip install flash_attn'"}) {
    expect_deny(command, "flash");
  }
}

TEST_F(AcceleratorSwapGuard, DeniesUninstallingProtectedPackages) {
  expect_deny("pip uninstall -y flash_attn", "uninstalls");
  expect_deny("echo ok; python -m pip uninstall -y xformers", "xformers");
  expect_deny("conda remove -y pytorch", "uninstalls");
  expect_deny("echo y | pip uninstall bitsandbytes", "bitsandbytes");
  expect_deny("pip install --force-reinstall torch==2.3.0", "torch");
}

TEST_F(AcceleratorSwapGuard, DeniesNvidiaWheelsAndCudaIndexes) {
  expect_deny("pip install nvidia-cublas-cu12==12.1.3.1", "NVIDIA");
  expect_deny("uv pip install cupy-cuda12x", "CUDA");
  expect_deny("pip install torch==2.3.0+cu121", "torch");
  expect_deny("pip install torchvision --index-url https://download.pytorch.org/whl/cu121", "CUDA wheel index");
  expect_deny("pip install --extra-index-url=https://pypi.nvidia.com tensorrt", "CUDA wheel index");
  expect_deny("PIP_INDEX_URL=https://download.pytorch.org/whl/cu118 pip install torchaudio", "CUDA wheel index");
  expect_deny("uv pip install jax-cuda12-plugin", "CUDA");
}

TEST_F(AcceleratorSwapGuard, DeniesCondaNvidiaChannelAndToolkits) {
  expect_deny("conda install -y pytorch-cuda=12.1 -c pytorch", "pytorch-cuda");
  expect_deny("mamba install -c nvidia cuda-toolkit", "nvidia conda channel");
  expect_deny("conda install nvidia::cuda-nvcc", "nvidia");
  expect_deny("micromamba install --channel=nvidia cudnn", "nvidia conda channel");
}

TEST_F(AcceleratorSwapGuard, CudaBuildsAreNotUnlockedByDegradations) {
  accelerator_swap_guard lenient({{{"torch", "D5", ""}, {"nvidia-cublas-cu12", "D5", ""}}, {"torch"}, 1 << 20},
                                 host.sdk_host());
  EXPECT_EQ(lenient.check_action(run("pip install nvidia-cublas-cu12")).verdict, "deny");
  EXPECT_EQ(lenient.check_action(run("pip install torch==2.3.0+cu121")).verdict, "deny");
}

TEST_F(AcceleratorSwapGuard, AllowsOrdinaryInstallsAndRocmWork) {
  for (const char* command :
       {"pip install einops transformers==4.40", "pip install -r requirements.txt", "pip list | grep flash",
        "python -c 'import flash_attn; print(flash_attn.__version__)'", "pip download flash_attn",
        "conda install -c conda-forge numpy", "sed -i 's/flash_attn_cuda/flash_attn_2_cuda/' m.py",
        "python train.py --attn_implementation flash_attention_2"}) {
    EXPECT_EQ(guard.check_action(run(command)).verdict, "allow") << command;
  }
}

TEST_F(AcceleratorSwapGuard, DeniesAttentionBackendSwapsInCommandsFilesAndPatches) {
  expect_deny("python run.py --attn_implementation sdpa", "sdpa");
  expect_deny("python run.py --attn-implementation=eager", "eager");
  expect_deny("ATTN_BACKEND=sdpa python gen.py", "ATTN_BACKEND");
  expect_deny("export ATTN_BACKEND=sdpa; python gen.py", "ATTN_BACKEND");
  const auto w =
      guard.check_action(action({{"type", "write_file"},
                                 {"path", "m.py"},
                                 {"content", "m = Auto.from_pretrained(p, attn_implementation=\"sdpa\")\n"}}));
  EXPECT_EQ(w.verdict, "deny");
  EXPECT_THAT(w.reason, HasSubstr("attn_implementation"));
  const std::string patch = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+os.environ['ATTN_BACKEND'] = 'sdpa'\n";
  EXPECT_EQ(guard.check_action(action({{"type", "apply_patch"}, {"patch", patch}})).verdict, "deny");
  const std::string revert =
      "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-attn_implementation='sdpa'\n+attn_implementation='flash_attention_2'\n";
  EXPECT_EQ(guard.check_action(action({{"type", "apply_patch"}, {"patch", revert}})).verdict, "allow");
}

TEST_F(AcceleratorSwapGuard, DeniesEditingOutTheFlashAttnImport) {
  expect_deny("sed -i 's/^from flash_attn import/# from flash_attn import/' model.py", "sed");
  expect_deny("sed -i '/import flash_attn/d' model.py", "sed");
  expect_deny("cd src && sed -i -e 's/^\\(from flash_attn.*\\)/#\\1/' a.py", "sed");
  const std::string comment =
      "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-from flash_attn import f\n+# from flash_attn import f\n";
  EXPECT_EQ(guard.check_action(action({{"type", "apply_patch"}, {"patch", comment}})).verdict, "deny");
  const std::string drop = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1 @@\n-import flash_attn\n x = 1\n";
  const auto d = guard.check_action(action({{"type", "apply_patch"}, {"patch", drop}}));
  EXPECT_EQ(d.verdict, "deny");
  EXPECT_THAT(d.reason, HasSubstr("deletes"));
  EXPECT_EQ(guard.check_action(action({{"type", "write_file"}, {"content", "#from flash_attn import x\n"}})).verdict,
            "deny");
}

TEST_F(AcceleratorSwapGuard, DeniesCudaBuildsWrittenIntoRequirementsFiles) {
  auto write = [&](const char* path, const char* content) {
    return guard.check_action(action({{"type", "write_file"}, {"path", path}, {"content", content}})).verdict;
  };
  EXPECT_EQ(write("requirements.txt", "numpy\nnvidia-cudnn-cu12==8.9\n"), "deny");
  EXPECT_EQ(write("env/requirements-gpu.txt", "--extra-index-url https://download.pytorch.org/whl/cu121\ntorch\n"),
            "deny");
  EXPECT_EQ(write("requirements.txt", "# nvidia-cudnn-cu12\ntorch>=2.1\nflash-attn\n"), "allow");
  EXPECT_EQ(write("notes.txt", "nvidia-cudnn-cu12\n"), "allow");
  const std::string patch =
      "--- a/requirements.txt\n+++ b/requirements.txt\n@@ -1 +1,2 @@\n numpy\n+torch==2.3.0+cu121\n";
  EXPECT_EQ(guard.check_action(action({{"type", "apply_patch"}, {"patch", patch}})).verdict, "deny");
}

TEST_F(AcceleratorSwapGuard, InstallActionsAreChecked) {
  EXPECT_EQ(guard.check_action(action({{"type", "install"}, {"manager", "pip"}, {"packages", {"nvidia-cudnn-cu12"}}}))
                .verdict,
            "deny");
  EXPECT_EQ(guard.check_action(action({{"type", "install"}, {"manager", "apt"}, {"packages", {"cuda-toolkit-12-1"}}}))
                .verdict,
            "deny");
  EXPECT_EQ(guard.check_action(action({{"type", "install"}, {"manager", "conda"}, {"packages", {"xformers"}}})).verdict,
            "deny");
  EXPECT_EQ(guard.check_action(action({{"type", "install"}, {"manager", "pip"}, {"packages", {"einops"}}})).verdict,
            "allow");
}

TEST_F(AcceleratorSwapGuard, AllowedDegradationsAllowWithALedgerEntry) {
  accelerator_swap_guard lenient({{{"flash_attn", "D2", "sdpa fallback accepted"}}, {"flash-attn"}, 1 << 20},
                                 host.sdk_host());
  const auto d = lenient.check_action(run("python run.py --attn_implementation sdpa"));
  EXPECT_EQ(d.verdict, "allow");
  ASSERT_EQ(d.ledger.size(), 1u);
  EXPECT_EQ(d.ledger[0].component, "flash-attn");
  EXPECT_EQ(d.ledger[0].level, "D2");
  EXPECT_THAT(d.ledger[0].note, HasSubstr("sdpa fallback accepted"));
  // Other protected packages stay denied; unlisted ones are not protected in this config.
  EXPECT_EQ(guard.check_action(run("pip uninstall -y flash-attn")).verdict, "deny");
  EXPECT_EQ(lenient.check_action(run("pip uninstall -y xformers")).verdict, "allow");
  EXPECT_TRUE(lenient.check_action(run("pip uninstall -y xformers")).ledger.empty());
}

TEST_F(AcceleratorSwapGuard, PolicyRecordsASubstitutionPerModeWithAReason) {
  accelerator_swap_guard::config cfg;
  cfg.policy = {{"guard", "r2r.guard.accelerator-swap"},
                {"components", {{"flash-attn", {{"level", "D2"}, {"default", "deny"}, {"mode1", "record"}}}}}};
  accelerator_swap_guard by_policy(cfg, host.sdk_host());
  auto check = [&](int mode, const char* reason) {
    nlohmann::json a = {{"type", "run"}, {"command", "python gen.py --attn_implementation sdpa"}};
    if (reason != nullptr) a["reason"] = reason;
    return by_policy.check_action(
        nlohmann::json{{"action", a}, {"context", {{"mode", mode}}}}.get<r2r::sdk::guard::check_request>());
  };
  const auto recorded = check(1, "no flash-attn wheel for gfx1100");
  EXPECT_EQ(recorded.verdict, "allow");
  ASSERT_EQ(recorded.ledger.size(), 1u);
  EXPECT_EQ(recorded.ledger[0].level, "D2");
  EXPECT_EQ(check(1, nullptr).verdict, "deny");
  EXPECT_EQ(check(2, "no flash-attn wheel for gfx1100").verdict, "deny");
  EXPECT_EQ(by_policy.check_action(run("pip uninstall -y xformers")).verdict, "deny");
  EXPECT_EQ(by_policy.check_action(run("pip install nvidia-cublas-cu12")).verdict, "deny");
}

TEST_F(AcceleratorSwapGuard, RejectsAnInvalidDegradationLevel) {
  EXPECT_THROW(accelerator_swap_guard({{{"flash-attn", "D9", ""}}, {}, 1 << 20}, host.sdk_host()),
               r2r::sdk::invalid_argument);
}

TEST_F(AcceleratorSwapGuard, LogsDenialsThroughTheHost) {
  guard.check_action(run("pip install nvidia-nccl-cu12"));
  bool logged = false;
  for (const auto& line : host.lines()) logged = logged || line.message.find("deny run") != std::string::npos;
  EXPECT_TRUE(logged);
}

}  // namespace

// Guards are created per run and per test case; the compiled switch lists are shared between
// instances of one policy, and a different policy never gets another's patterns.
TEST(SwitchMatcher, OnePolicyIsCompiledOnceAndAnotherPolicyGetsItsOwnPatterns) {
  namespace accel = r2r::plugins::guard::accel;
  namespace policy = r2r::plugins::guard::policy;
  const std::vector<policy::switch_rule> xformers{{"environment", "XFORMERS_DISABLED", "1|true", "xformers.disabled"}};
  const std::vector<policy::switch_rule> flash{{"environment", "USE_FLASH_ATTENTION", "0|false", "flash-attn"}};
  const std::vector<policy::forbidden_variable> none;
  const auto a = accel::switch_matcher::shared(xformers, none);
  const auto b = accel::switch_matcher::shared(xformers, none);
  const auto c = accel::switch_matcher::shared(flash, none);
  EXPECT_EQ(a.get(), b.get());
  ASSERT_NE(a.get(), c.get());
  EXPECT_EQ(a->environment_switches("export XFORMERS_DISABLED=1").size(), 1U);
  EXPECT_TRUE(a->environment_switches("export USE_FLASH_ATTENTION=0").empty());
  ASSERT_EQ(c->environment_switches("USE_FLASH_ATTENTION=false python train.py").size(), 1U);
  EXPECT_EQ(c->environment_switches("USE_FLASH_ATTENTION=false python train.py")[0].component, "flash-attn");
  // Same names, another off value: a separate matcher, not the first one's.
  const std::vector<policy::switch_rule> xformers_off_only_on_zero{
      {"environment", "XFORMERS_DISABLED", "0", "xformers.disabled"}};
  const auto d = accel::switch_matcher::shared(xformers_off_only_on_zero, none);
  EXPECT_NE(a.get(), d.get());
  EXPECT_TRUE(d->environment_switches("export XFORMERS_DISABLED=1").empty());
}
