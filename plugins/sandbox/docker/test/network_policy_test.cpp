// SPDX-License-Identifier: MIT
// The network policy of r2r.sandbox.docker against real engines (dockerd, and Podman's service when
// installed) and a real package index: package_index_world serves a PEP 503 index of two wheels
// the test writes (r2r-app depends on r2r-base) from its own container on an internal network of
// a private engine; the sandboxes are attached to that network only as the policy allows. Every
// attack is paired with a control showing the same probe does reach the index when allowed, so a
// failure to connect is the policy's doing and not a broken probe.
#include "docker_engine.hpp"
#include "docker_sandbox.hpp"
#include "package_index_world.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace sb = r2r::sdk::sandbox;
using r2r::plugins::sandbox::docker::docker_engine;
using r2r::plugins::sandbox::docker::docker_sandbox;
using r2r::plugins::sandbox::docker::testing::package_index_world;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

const char* const install_app = "python3 -m pip install --no-cache-dir --disable-pip-version-check r2r-app";

fs::path test_rootfs() {
  const char* dir = std::getenv("R2R_TEST_IMAGE_ROOTFS");
  return dir != nullptr ? fs::path(dir) : fs::path();
}

class NetworkPolicy : public ::testing::TestWithParam<std::string> {
 protected:
  // One world per engine for the whole suite: importing the 200 MB image takes seconds.
  static std::map<std::string, std::unique_ptr<package_index_world>>& worlds() {
    static std::map<std::string, std::unique_ptr<package_index_world>> w;
    return w;
  }
  static void TearDownTestSuite() { worlds().clear(); }

  void SetUp() override {
    if (test_rootfs().empty()) GTEST_SKIP() << "R2R_TEST_IMAGE_ROOTFS is not set (ctest sets it)";
    auto& w = worlds()[GetParam()];
    if (!w) w = std::make_unique<package_index_world>(GetParam(), test_rootfs(), R2R_PACKAGE_INDEX_SCRIPT);
    if (!w->ok()) GTEST_SKIP() << GetParam() << ": the package index world cannot start here: " << w->why();
    world = w.get();
    config.socket = world->engine().socket();
    config.default_image = package_index_world::image;
    config.network_mode = package_index_world::network;
    config.package_index.index_url = world->index_url();
    config.state_dir = (world->engine().dir() / "state").string();
    config.default_limits = {1LL << 30, 1.0, 256, 16LL << 20};
    config.default_timeout_s = 120;
    config.max_output_bytes = 64 * 1024;
    workspace = world->engine().dir() / ("ws-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    fs::create_directories(workspace);
    sandbox = std::make_unique<docker_sandbox>(config, host.sdk_host());
  }
  void TearDown() override {
    if (!sandbox) return;
    sandbox.reset();
    docker_engine e(config.socket, "1.41", std::chrono::seconds(30));
    EXPECT_THAT(e.containers_with_label(config.label, ""), IsEmpty()) << "labelled container left";
  }

  sb::create_response make(const std::string& policy = {}) {
    sb::create_request plan;
    plan.workspace = workspace.string();
    plan.network = policy;
    auto r = sandbox->create(plan);
    id = r.sandbox_id;
    return r;
  }
  sb::exec_response run(const std::string& command, bool install = false, double timeout_s = 0) {
    sb::exec_request r;
    r.sandbox_id = id;
    r.command = command;
    r.install = install;
    r.timeout_s = timeout_s;
    auto ctx = host.context();
    return sandbox->exec(r, ctx);
  }
  // Prints "reached" when an HTTP request to the index gets any answer within 3 s.
  std::string probe() const {
    return "python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=3); "
           "print(\"reached\")' " +
           world->probe_url();
  }
  std::vector<std::string> sandbox_networks() {
    docker_engine e(config.socket, "1.41", std::chrono::seconds(30));
    const auto containers = e.containers_with_label(config.label + ".owner", sandbox->owner());
    EXPECT_EQ(containers.size(), 1U);
    return containers.empty() ? std::vector<std::string>{} : e.container_networks(containers.front());
  }

  static inline int counter = 0;
  package_index_world* world = nullptr;
  r2r::sdk::testing::fake_host host;
  docker_sandbox::config config;
  std::unique_ptr<docker_sandbox> sandbox;
  fs::path workspace;
  std::string id;
};

TEST_P(NetworkPolicy, InstallPolicyInstallExecInstallsBothWheelsFromTheIndex) {
  EXPECT_EQ(make().network, "install");  // the default
  EXPECT_THAT(sandbox_networks(), IsEmpty()) << "an install sandbox starts detached";
  const auto installed = run(install_app, true);
  ASSERT_EQ(installed.exit_code, 0) << installed.stdout_text << installed.stderr_text;
  EXPECT_TRUE(installed.network);
  EXPECT_THAT(installed.stdout_text, HasSubstr("Successfully installed r2r-app-1.0 r2r-base-1.0"));
  EXPECT_THAT(sandbox_networks(), IsEmpty()) << "detached again after the install";
  // The installed packages work offline afterwards: r2r_app imports r2r_base.
  const auto used = run("python3 -c 'import r2r_app; print(r2r_app.VALUE)'");
  EXPECT_EQ(used.exit_code, 0) << used.stderr_text;
  EXPECT_EQ(used.stdout_text, "app-ok+base-ok\n");
  EXPECT_FALSE(used.network);
}

TEST_P(NetworkPolicy, InstallPolicyPlainExecsCannotReachTheIndex) {
  make("install");
  const std::string host_ip = world->index_url().substr(7, world->index_url().find(':', 7) - 7);
  const std::string explicit_index =
      "python3 -m pip install --no-cache-dir --disable-pip-version-check --timeout 3 --retries 0 --index-url " +
      world->index_url() + " --trusted-host " + host_ip + " r2r-app";
  // Attacks: a workload `run` that is not an install, reaching the index directly, through pip,
  // and as pip download disguised inside sh -c.
  for (const std::string& attack :
       {probe(), explicit_index, "sh -c '" + explicit_index + "'",
        "sh -c 'python3 -m pip download --no-cache-dir --timeout 3 --retries 0 -d /tmp/dl --index-url " +
            world->index_url() + " --trusted-host " + host_ip + " r2r-base'"}) {
    const auto r = run(attack);
    EXPECT_NE(r.exit_code, 0) << attack << "\n" << r.stdout_text;
    EXPECT_THAT(r.stdout_text, Not(HasSubstr("reached"))) << attack;
    EXPECT_THAT(r.stdout_text, Not(HasSubstr("Successfully"))) << attack;
    EXPECT_FALSE(r.network);
  }
  // The index settings go into install execs only.
  EXPECT_THAT(run("env").stdout_text, Not(HasSubstr("PIP_INDEX_URL")));
  EXPECT_THAT(run("env", true).stdout_text, HasSubstr("PIP_INDEX_URL=" + world->index_url()));
  // Control: the very same probe, marked as an install, reaches the index.
  const auto control = run(probe(), true);
  EXPECT_EQ(control.exit_code, 0) << control.stderr_text;
  EXPECT_THAT(control.stdout_text, HasSubstr("reached"));
  EXPECT_FALSE(run(probe()).stdout_text.find("reached") != std::string::npos) << "attached again after the control";
}

TEST_P(NetworkPolicy, NonePolicyDeniesInstallsToo) {
  EXPECT_EQ(make("none").network, "none");
  const auto installed = run(install_app + std::string(" --timeout 3 --retries 0"), true);
  EXPECT_NE(installed.exit_code, 0);
  EXPECT_THAT(installed.stdout_text, Not(HasSubstr("Successfully")));
  EXPECT_FALSE(installed.network);
  EXPECT_THAT(run(probe(), true).stdout_text, Not(HasSubstr("reached")));
  EXPECT_THAT(run(probe()).stdout_text, Not(HasSubstr("reached")));
}

TEST_P(NetworkPolicy, AlwaysPolicyIsRecordedAndReachesFromEveryExec) {
  EXPECT_EQ(make("always").network, "always");
  const auto r = run(probe());
  EXPECT_THAT(r.stdout_text, HasSubstr("reached")) << r.stderr_text;
  EXPECT_TRUE(r.network);
  EXPECT_THAT(sandbox_networks(), ::testing::ElementsAre(package_index_world::network));
}

TEST_P(NetworkPolicy, AHangingInstallIsDetachedWhenItTimesOut) {
  make();
  const auto hung = run("python3 -c 'import time; time.sleep(60)'", true, 2);
  EXPECT_TRUE(hung.timed_out);
  EXPECT_THAT(sandbox_networks(), IsEmpty()) << "a timed-out install left the sandbox attached";
  EXPECT_THAT(run(probe()).stdout_text, Not(HasSubstr("reached")));
  const auto failed = run("python3 -c 'import sys; sys.exit(3)'", true);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_THAT(sandbox_networks(), IsEmpty()) << "a failed install left the sandbox attached";
}

TEST_P(NetworkPolicy, ABackgroundJobOfAPlainExecDoesNotShareAnInstallsWindow) {
  make();
  // Attack: a plain exec leaves a prober running, then an install opens the network for 3 s.
  const std::string prober =
      "for i in $(seq 1 40); do " + probe() + " >/dev/null 2>&1 && echo reached >> /workspace/leak; sleep 0.25; done";
  ASSERT_EQ(run("(" + prober + ") >/dev/null 2>&1 &").exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto window = run("sleep 3", true);
  EXPECT_EQ(window.exit_code, 0);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_FALSE(fs::exists(workspace / "leak")) << "a background job reached the index during an install";
}

TEST_P(NetworkPolicy, RollbackRecreatesTheSandboxDetached) {
  make();
  ASSERT_EQ(sandbox->checkpoint({id, "before"}).checkpoint, "before");
  sandbox->rollback({id, "before"});
  EXPECT_THAT(sandbox_networks(), IsEmpty());
  EXPECT_THAT(run(probe()).stdout_text, Not(HasSubstr("reached")));
  EXPECT_THAT(run(probe(), true).stdout_text, HasSubstr("reached"));
}

std::vector<std::string> engines() {
  std::vector<std::string> list{"docker"};
  if (access("/usr/bin/podman", X_OK) == 0) list.push_back("podman");
  return list;
}

INSTANTIATE_TEST_SUITE_P(Engines, NetworkPolicy, ::testing::ValuesIn(engines()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
