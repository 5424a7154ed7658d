// SPDX-License-Identifier: MIT
// The reference's bypasses (docs/research/reference.md §3) sent to the real guard libraries,
// loaded from the build's plugin directory and called through r2r::core::plugin_instance, so the
// request and response schemas and the C ABI are on the path.
#include "../unit/test_support.hpp"

#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

namespace {

using ::testing::HasSubstr;

class GuardBypass : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto loaded = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
    ASSERT_TRUE(loaded.has_value());
    registry = std::make_unique<r2r::core::plugin_registry>(std::move(*loaded));
  }
  static void TearDownTestSuite() { registry.reset(); }

  /// A fresh instance of guard `id` with `config` (each test starts with no guard state).
  static std::unique_ptr<r2r::core::plugin_instance> guard(const char* id,
                                                           const nlohmann::json& config = nlohmann::json::object()) {
    const auto* plugin = registry->find(id);
    EXPECT_NE(plugin, nullptr) << id;
    if (plugin == nullptr) return nullptr;
    auto instance = r2r::core::plugin_instance::create(*plugin, config);
    EXPECT_TRUE(instance.has_value()) << id;
    return instance.has_value() ? std::move(*instance) : nullptr;
  }

  static nlohmann::json check(r2r::core::plugin_instance& g, const nlohmann::json& action,
                              const nlohmann::json& context = nlohmann::json::object()) {
    auto r = g.call("check_action", {{"action", action}, {"context", context}});
    EXPECT_TRUE(r.has_value()) << (r.has_value() ? "" : r.error().to_string());
    return r.has_value() ? *r : nlohmann::json{{"decision", "error"}};
  }
  static nlohmann::json run(r2r::core::plugin_instance& g, const std::string& command) {
    return check(g, {{"type", "run"}, {"command", command}});
  }

  static void expect_denied(const nlohmann::json& d, const std::string& what) {
    EXPECT_EQ(d.value("decision", ""), "deny") << what;
    EXPECT_FALSE(d.value("reason", "").empty()) << what;
    EXPECT_FALSE(d.value("unlock", "").empty()) << what;
  }

  static std::unique_ptr<r2r::core::plugin_registry> registry;
};
std::unique_ptr<r2r::core::plugin_registry> GuardBypass::registry;

TEST_F(GuardBypass, EchoingTheMarker) {
  auto g = guard("r2r.guard.success_claim");
  ASSERT_TRUE(g);
  expect_denied(run(*g, "echo ROCM_ENV_VERIFIED"), "echo");
  expect_denied(run(*g, "bash -c \"echo 'ROCM_ENV_VERIFIED'\""), "bash -c echo");
}

TEST_F(GuardBypass, PrintingTheMarker) {
  auto g = guard("r2r.guard.success_claim");
  ASSERT_TRUE(g);
  expect_denied(run(*g, "printf 'ROCM_ENV_%s\\n' VERIFIED"), "printf");
  expect_denied(run(*g, "python -c 'print(\"PAPER_RESULT_REPRODUCED\")'"), "python print");
}

TEST_F(GuardBypass, CatOfAFileWithTheMarker) {
  auto g = guard("r2r.guard.success_claim");
  ASSERT_TRUE(g);
  expect_denied(check(*g, {{"type", "write_file"}, {"path", "plan.md"}, {"content", "- [x] ROCM_ENV_VERIFIED\n"}}),
                "write marker");
  expect_denied(run(*g, "cat plan.md"), "cat");
  EXPECT_EQ(run(*g, "cat README.md")["decision"], "allow");
}

TEST_F(GuardBypass, WorkloadThenEcho) {
  auto g = guard("r2r.guard.success_claim");
  ASSERT_TRUE(g);
  expect_denied(run(*g, "python train.py --epochs 1 && echo ROCM_ENV_VERIFIED"), "workload && echo");
  EXPECT_EQ(run(*g, "python train.py --epochs 1 | grep -c ROCM_ENV_VERIFIED")["decision"], "allow");
}

TEST_F(GuardBypass, ClaimSuccessWithoutVerifier) {
  auto g = guard("r2r.guard.success_claim");
  ASSERT_TRUE(g);
  expect_denied(check(*g, {{"type", "claim_success"}}, {{"mode", 1}, {"turn", 4}}), "claim");
  EXPECT_EQ(check(*g, {{"type", "claim_success"}}, {{"verifier_ran", true}, {"verifier_passed", true}})["decision"],
            "allow");
}

TEST_F(GuardBypass, PipInstallFlashAttnSpellings) {
  auto g = guard("r2r.guard.accelerator_swap");
  ASSERT_TRUE(g);
  for (const char* command : {"pip install flash_attn==2.5.8", "pip install flash-attn==2.6.3 --no-build-isolation",
                              "python -m pip install Flash_Attn", "pip uninstall -y flash-attn"}) {
    const auto d = run(*g, command);
    expect_denied(d, command);
    EXPECT_THAT(d.value("reason", ""), HasSubstr("flash-attn")) << command;
  }
}

TEST_F(GuardBypass, UvPipAndCondaNvidiaWheels) {
  auto g = guard("r2r.guard.accelerator_swap");
  ASSERT_TRUE(g);
  expect_denied(run(*g, "uv pip install nvidia-cudnn-cu12"), "uv pip");
  expect_denied(run(*g, "conda install -y -c nvidia cuda-toolkit"), "conda -c nvidia");
  expect_denied(run(*g, "conda install pytorch pytorch-cuda=12.1 -c pytorch"), "pytorch-cuda");
  expect_denied(check(*g, {{"type", "install"}, {"manager", "uv"}, {"packages", {"torch==2.3.0+cu121"}}}), "install");
}

TEST_F(GuardBypass, SedCommentingOutFlashAttnImport) {
  auto g = guard("r2r.guard.accelerator_swap");
  ASSERT_TRUE(g);
  expect_denied(run(*g, "sed -i 's/^from flash_attn import/# &/' models/attn.py"), "sed comment");
}

TEST_F(GuardBypass, ConfiguredDegradationIsAllowedOnTheLedger) {
  auto g = guard("r2r.guard.accelerator_swap",
                 {{"allow_degradations", {{{"component", "flash-attn"}, {"level", "D2"}, {"note", "sdpa"}}}}});
  ASSERT_TRUE(g);
  const auto d = run(*g, "python gen.py --attn_implementation sdpa");
  EXPECT_EQ(d["decision"], "allow");
  ASSERT_EQ(d["ledger"].size(), 1u);
  EXPECT_EQ(d["ledger"][0]["level"], "D2");
  EXPECT_EQ(d["ledger"][0]["component"], "flash-attn");
}

TEST_F(GuardBypass, InvalidConfigIsRejectedAtCreation) {
  const auto* plugin = registry->find("r2r.guard.accelerator_swap");
  ASSERT_NE(plugin, nullptr);
  EXPECT_FALSE(r2r::core::plugin_instance::create(
                   *plugin, {{"allow_degradations", {{{"component", "flash-attn"}, {"level", "D7"}}}}})
                   .has_value());
}

}  // namespace
