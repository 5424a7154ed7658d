// SPDX-License-Identifier: MIT
#include "container_spec.hpp"

#include <r2r/sdk/error.hpp>

#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::sandbox::docker;
namespace sb = r2r::sdk::sandbox;

spec_inputs inputs() {
  spec_inputs in;
  in.image = "local/busybox";
  in.host_workspace = "/srv/ws";
  in.limits = {1LL << 30, 1.5, 100, 64LL << 20};
  in.keepalive_cmd = {"sleep", "1000"};
  in.labels = {{"org.repo2rocm.sandbox", "1"}};
  in.gpu_groups = {"44", "105"};
  return in;
}

TEST(ContainerSpec, DefaultsAreLockedDown) {
  const auto j = container_spec(sb::create_request{}, inputs());
  const auto& h = j["HostConfig"];
  EXPECT_EQ(h["Privileged"], false);
  EXPECT_EQ(h["NetworkMode"], "none");
  EXPECT_EQ(j["NetworkDisabled"], true);
  ASSERT_EQ(h["Binds"].size(), 1u);
  EXPECT_EQ(h["Binds"][0], "/srv/ws:/workspace:rw");
  EXPECT_EQ(h["Memory"], 1LL << 30);
  EXPECT_EQ(h["MemorySwap"], 1LL << 30);
  EXPECT_EQ(h["NanoCpus"], 1500000000LL);
  EXPECT_EQ(h["PidsLimit"], 100);
  EXPECT_EQ(h["ShmSize"], 64LL << 20);
  EXPECT_EQ(h["IpcMode"], "private");
  EXPECT_TRUE(h["Devices"].empty());
  EXPECT_TRUE(h["GroupAdd"].empty());
  EXPECT_EQ(h["SecurityOpt"], nlohmann::json::array({"no-new-privileges"}));
  EXPECT_EQ(j["Labels"]["org.repo2rocm.sandbox"], "1");
  EXPECT_FALSE(j.dump().find("HIP_VISIBLE_DEVICES") != std::string::npos);
}

TEST(ContainerSpec, GpuPlanPassesKfdAndOneRenderNode) {
  sb::create_request plan;
  sb::gpu g;
  g.index = 2;
  g.render_minor = 130;
  g.visible_devices = "0";
  plan.gpu = g;
  plan.seccomp = "unconfined";
  plan.ipc = "host";
  auto in = inputs();
  in.network_policy = "always";
  const auto j = container_spec(plan, in);
  const auto& h = j["HostConfig"];
  ASSERT_EQ(h["Devices"].size(), 2u);
  EXPECT_EQ(h["Devices"][0]["PathOnHost"], "/dev/kfd");
  EXPECT_EQ(h["Devices"][0]["PathInContainer"], "/dev/kfd");
  EXPECT_EQ(h["Devices"][1]["PathOnHost"], "/dev/dri/renderD130");
  EXPECT_EQ(h["Devices"][1]["PathInContainer"], "/dev/dri/renderD130");
  EXPECT_EQ(h["GroupAdd"], nlohmann::json::array({"44", "105"}));
  EXPECT_EQ(h["IpcMode"], "host");
  EXPECT_EQ(h["NetworkMode"], "bridge");
  EXPECT_EQ(h["SecurityOpt"], nlohmann::json::array({"no-new-privileges", "seccomp=unconfined"}));
  EXPECT_EQ(h["Privileged"], false);
  const auto env = j["Env"].dump();
  EXPECT_NE(env.find("HIP_VISIBLE_DEVICES=0"), std::string::npos);
  EXPECT_NE(env.find("ROCR_VISIBLE_DEVICES=0"), std::string::npos);
}

TEST(ContainerSpec, InstallPolicyCreatesOnTheNetworkSoItCanBeAttachedLater) {
  auto in = inputs();
  in.network_policy = "install";
  in.network_mode_when_needed = "r2r-index";
  const auto j = container_spec(sb::create_request{}, in);
  // docker_sandbox detaches it before start; "none" could never be attached to a network again.
  EXPECT_EQ(j["HostConfig"]["NetworkMode"], "r2r-index");
  EXPECT_EQ(j["NetworkDisabled"], false);
  in.network_policy = "none";
  EXPECT_EQ(container_spec(sb::create_request{}, in)["HostConfig"]["NetworkMode"], "none");
  in.network_policy = "open";
  EXPECT_THROW(container_spec(sb::create_request{}, in), r2r::sdk::invalid_argument);
}

TEST(ContainerSpec, RejectsUnknownSeccompAndIpc) {
  sb::create_request plan;
  plan.seccomp = "off";
  EXPECT_THROW(container_spec(plan, inputs()), r2r::sdk::invalid_argument);
  plan.seccomp.clear();
  plan.ipc = "shareable";
  EXPECT_THROW(container_spec(plan, inputs()), r2r::sdk::invalid_argument);
}

TEST(ContainerSpec, MountsAreBoundReadOnlyBesideTheOneWritableWorkspace) {
  sb::create_request plan;
  plan.mounts = {{"/srv/run/assets", "/opt/r2r-assets"}};
  const auto binds = container_spec(plan, inputs())["HostConfig"]["Binds"];
  ASSERT_EQ(binds.size(), 2u);
  EXPECT_EQ(binds[0], "/srv/ws:/workspace:rw");
  EXPECT_EQ(binds[1], "/srv/run/assets:/opt/r2r-assets:ro");
}

}  // namespace
