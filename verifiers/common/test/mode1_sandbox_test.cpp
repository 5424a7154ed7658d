// SPDX-License-Identifier: MIT
// The verifier plugins loaded from the build's plugin directory and run against the real
// r2r.sandbox.local (bubblewrap) on this machine, which has no GPU: a workload that prints every
// success marker is still never a pass. Skips, saying why, only when bwrap cannot run here.
#include "test_support.hpp"

#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>

namespace {

using ::testing::HasSubstr;

class directory : public r2r::core::service_directory {
 public:
  r2r::core::plugin_instance* resolve(std::string_view name) override {
    auto it = by_name.find(std::string(name));
    return it == by_name.end() ? nullptr : it->second;
  }
  std::map<std::string, r2r::core::plugin_instance*> by_name;
};

class Mode1Sandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
    ASSERT_TRUE(loaded.has_value());
    registry = std::make_unique<r2r::core::plugin_registry>(std::move(*loaded));
    sandbox = instance("r2r.sandbox.local", nlohmann::json::object(), "sandbox");
    ASSERT_TRUE(sandbox);
    services.by_name["sandbox"] = sandbox.get();
    auto created = sandbox->call("create", nlohmann::json::object());
    if (!created.has_value()) GTEST_SKIP() << "r2r.sandbox.local cannot run here: " << created.error().to_string();
    id = created->at("sandbox_id").get<std::string>();
    auto probe = sandbox->call("exec", {{"sandbox_id", id}, {"command", "true"}});
    if (!probe.has_value() || probe->at("exit_code") != 0) GTEST_SKIP() << "bwrap cannot create namespaces here";
  }
  void TearDown() override {
    if (!id.empty()) (void)sandbox->call("destroy", {{"sandbox_id", id}});
  }

  std::unique_ptr<r2r::core::plugin_instance> instance(const char* plugin_id, const nlohmann::json& config,
                                                       const char* name) {
    const auto* plugin = registry->find(plugin_id);
    EXPECT_NE(plugin, nullptr) << plugin_id;
    if (plugin == nullptr) return nullptr;
    r2r::core::instance_options options;
    options.name = name;
    options.services = &services;
    auto made = r2r::core::plugin_instance::create(*plugin, config, options);
    EXPECT_TRUE(made.has_value()) << plugin_id << ": " << (made.has_value() ? "" : made.error().to_string());
    return made.has_value() ? std::move(*made) : nullptr;
  }

  nlohmann::json verify(r2r::core::plugin_instance& verifier, const std::string& command, int mode = 1,
                        nlohmann::json earlier = nlohmann::json::array()) {
    const nlohmann::json request = {
        {"plan", {{"workload", {{"command", command}, {"kind", "train"}}}, {"metric", nullptr}}},
        {"mode", mode},
        {"sandbox", {{"id", id}}},
        {"device", {{"vendor", "amd"}}},
        {"earlier", earlier}};
    auto r = verifier.call("verify", request);
    EXPECT_TRUE(r.has_value()) << (r.has_value() ? "" : r.error().to_string());
    return r.has_value() ? *r : nlohmann::json{{"verdict", "missing"}};
  }

  std::unique_ptr<r2r::core::plugin_registry> registry;
  directory services;
  std::unique_ptr<r2r::core::plugin_instance> sandbox;
  std::string id;
};

constexpr const char* markers_on_cpu =
    "touch workload-ran && printf "
    "'print(\"ROCM_ENV_VERIFIED\")\\nprint(\"Success\")\\nprint(\"PAPER_RESULT_REPRODUCED\")\\n' > w.py && "
    "python3 w.py";

TEST_F(Mode1Sandbox, RocmMarkersOnTheCpuAreNoDeviceNeverPass) {
  auto v = instance("r2r.verifier.mode1-rocm", {{"timeout_s", 60}}, "verify_rocm");
  ASSERT_TRUE(v);
  const auto r = verify(*v, markers_on_cpu);
  EXPECT_EQ(r.at("verdict"), "no_device");
  EXPECT_EQ(r.at("summary"), "no ROCm device: not verified");
  for (const auto& c : r.at("checks")) EXPECT_EQ(c.at("status"), "not_verified") << c.dump();
  EXPECT_FALSE(r.contains("workload")) << "without a device the workload is not run";
  EXPECT_THAT(r.at("evidence").at(0).at("detail").get<std::string>(), HasSubstr("/dev/kfd"));
  const auto ran = sandbox->call("exec", {{"sandbox_id", id}, {"command", "test -e workload-ran"}});
  ASSERT_TRUE(ran.has_value());
  EXPECT_NE(ran->at("exit_code"), 0) << "the workload must not run without a device";
}

TEST_F(Mode1Sandbox, CudaVerifierWithoutAnNvidiaGpuIsNoDevice) {
  auto v = instance("r2r.verifier.mode1-cuda", {{"timeout_s", 60}}, "verify_cuda");
  ASSERT_TRUE(v);
  const auto r = verify(*v, markers_on_cpu);
  EXPECT_EQ(r.at("verdict"), "no_device");
  EXPECT_EQ(r.at("summary"), "no NVIDIA device: not verified");
}

TEST_F(Mode1Sandbox, Mode2RefusesAfterNoDevice) {
  auto v1 = instance("r2r.verifier.mode1-rocm", {{"timeout_s", 60}}, "verify_rocm");
  auto v2 = instance("r2r.verifier.mode2-metrics", nlohmann::json::object(), "verify_metrics");
  ASSERT_TRUE(v1 && v2);
  const auto first = verify(*v1, "echo 'accuracy: 99.0'");
  const auto r = verify(*v2, "echo 'accuracy: 99.0'", 2, nlohmann::json::array({first}));
  EXPECT_EQ(r.at("verdict"), "fail");
  EXPECT_THAT(r.at("summary").get<std::string>(), HasSubstr("Mode 1 pass first"));
}

}  // namespace
