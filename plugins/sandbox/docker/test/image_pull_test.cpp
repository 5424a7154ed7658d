// SPDX-License-Identifier: MIT
// Pulling what the plan chose, against a real registry: Debian's `docker-registry` (distribution
// 2.8) started by this test on 127.0.0.1:5000 inside a network namespace the test process
// unshares for itself before anything starts, so the registry, the private dockerd and the pull
// traffic never touch the host's interfaces (dockerd treats 127.0.0.0/8 registries as plain
// HTTP). The test pushes an image there through the Engine API, deletes it from the engine, and
// has the sandbox pull it. dockerd only: Podman needs a registries.conf to pull over plain HTTP.
// Its own executable: the unshare changes the whole process.
#include "docker_engine.hpp"
#include "docker_sandbox.hpp"
#include "engine_fixture.hpp"
#include "test_registry.hpp"
#include "unix_http.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace sb = r2r::sdk::sandbox;
using r2r::plugins::sandbox::docker::docker_engine;
using r2r::plugins::sandbox::docker::docker_sandbox;
using r2r::plugins::sandbox::docker::unix_http;
using r2r::plugins::sandbox::docker::url_encode;
using r2r::plugins::sandbox::docker::testing::engine_fixture;
using r2r::plugins::sandbox::docker::testing::test_registry;
using ::testing::HasSubstr;

constexpr const char* pushed_ref = "127.0.0.1:5000/r2r/busybox:1";

// The namespace, the registry, the engine, and the digest of the image pushed to the registry.
struct registry_world {
  std::string why;
  fs::path dir;
  std::unique_ptr<test_registry> registry;
  std::unique_ptr<engine_fixture> engine;
  std::unique_ptr<engine_fixture> podman;  // with the registry as a plain-HTTP registry; null: none
  std::unique_ptr<engine_fixture> strict;  // podman without that entry
  std::string podman_why;                  // why there is no podman, when there is none
  std::string digest;                      // "sha256:…" the registry gave the pushed image

  registry_world() {
    char templ[] = "/tmp/r2r-registry-XXXXXX";
    if (mkdtemp(templ) == nullptr) {
      why = "cannot create a temporary directory";
      return;
    }
    dir = templ;
    registry = std::make_unique<test_registry>(dir / "registry");
    if (!registry->why().empty()) {
      why = registry->why();
      return;
    }
    engine = std::make_unique<engine_fixture>("docker");
    if (!engine->ok()) {
      why = "dockerd cannot start here: " + engine->why();
      return;
    }
    why = push();
    if (!why.empty()) return;
    if (std::system("command -v podman >/dev/null 2>&1") != 0) {
      podman_why = "podman is not installed (scripts/bootstrap.sh installs podman)";
      return;
    }
    podman = std::make_unique<engine_fixture>("podman", test_registry::host);
    strict = std::make_unique<engine_fixture>("podman");
    if (!podman->ok() || !strict->ok()) podman_why = "podman cannot start here: " + podman->why() + strict->why();
  }

  // Tags the fixture's busybox as pushed_ref, pushes it, and removes both names from the engine.
  std::string push() {
    unix_http http(engine->socket(), "/v1.41", std::chrono::seconds(120));
    auto r = http.request("POST", "/images/" + url_encode(engine_fixture::image) +
                                      "/tag?repo=" + url_encode("127.0.0.1:5000/r2r/busybox") + "&tag=1");
    if (r.status != 201) return "tag failed: HTTP " + std::to_string(r.status) + " " + r.body;
    unix_http::stream_options o;
    o.headers.push_back("X-Registry-Auth: e30=");  // {}: anonymous
    std::string answer;
    o.sink = [&](std::string_view chunk) { answer.append(chunk); };
    const auto pushed = http.stream("POST", "/images/" + url_encode("127.0.0.1:5000/r2r/busybox") + "/push?tag=1", o);
    if (pushed.status != 200 || answer.find("\"error\"") != std::string::npos) {
      return "push failed: HTTP " + std::to_string(pushed.status) + " " + pushed.error_body + answer;
    }
    const auto at = answer.find("\"Digest\":\"");
    if (at == std::string::npos) return "the push reported no digest: " + answer;
    digest = answer.substr(at + 10, answer.find('"', at + 10) - at - 10);
    for (const std::string& name : {std::string(pushed_ref), std::string(engine_fixture::image)}) {
      r = http.request("DELETE", "/images/" + url_encode(name) + "?force=1");
      if (r.status != 200) return "removing " + name + " failed: HTTP " + std::to_string(r.status) + " " + r.body;
    }
    return {};
  }

  ~registry_world() {
    podman.reset();
    strict.reset();
    engine.reset();
    registry.reset();
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

class ImagePull : public ::testing::Test {
 protected:
  static registry_world& world() {
    static registry_world w;
    return w;
  }
  void SetUp() override {
    if (!world().why.empty()) GTEST_SKIP() << world().why;
    config.socket = world().engine->socket();
    config.network = "none";  // this engine has no network; the pull is the engine's own traffic
    config.state_dir = (world().engine->dir() / "state").string();
    config.default_limits = {256LL << 20, 1.0, 128, 16LL << 20};
    config.pull_progress = "events";
  }
  void remove_pulled() {
    unix_http http(config.socket, "/v1.41", std::chrono::seconds(60));
    (void)http.request("DELETE", "/images/" + url_encode(pushed_ref) + "?force=1");
  }

  r2r::sdk::testing::fake_host host;
  docker_sandbox::config config;
};

TEST_F(ImagePull, NoPullFailsFastWithTheCurrentMessage) {
  remove_pulled();
  config.no_pull = true;
  docker_sandbox sandbox(config, host.sdk_host());
  sb::create_request plan;
  plan.image = pushed_ref;
  const auto start = std::chrono::steady_clock::now();
  try {
    sandbox.create(plan);
    FAIL() << "a missing image was used under no_pull";
  } catch (const r2r::sdk::failed& e) {
    EXPECT_THAT(e.what(), HasSubstr("is not on the engine"));
    EXPECT_THAT(e.what(), HasSubstr("images are never pulled"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  docker_engine e(config.socket, "1.41", std::chrono::seconds(30));
  EXPECT_FALSE(e.inspect_image(pushed_ref).has_value()) << "no_pull pulled anyway";
}

TEST_F(ImagePull, CreatePullsAMissingImageWithProgressAndPinsItsDigest) {
  remove_pulled();
  docker_sandbox sandbox(config, host.sdk_host());
  sb::create_request plan;
  plan.image = pushed_ref;
  const auto created = sandbox.create(plan);
  EXPECT_EQ(created.image_digest, "127.0.0.1:5000/r2r/busybox@" + world().digest);
  sb::exec_request run;
  run.sandbox_id = created.sandbox_id;
  run.command = "echo pulled-and-running";
  auto ctx = host.context();
  EXPECT_EQ(sandbox.exec(run, ctx).stdout_text, "pulled-and-running\n");
  // Progress as events (no terminal here): a line per layer status change, not per byte.
  std::string log;
  for (const auto& l : host.lines()) log += l.message + "\n";
  EXPECT_THAT(log, HasSubstr("pulling " + std::string(pushed_ref) + " from 127.0.0.1:5000"));
  EXPECT_THAT(log, HasSubstr(": Pull complete"));
  EXPECT_THAT(log, HasSubstr("pulled " + std::string(pushed_ref) + " as 127.0.0.1:5000/r2r/busybox@sha256:"));
  // The pinned reference names the same bytes: it resolves on the engine.
  docker_engine e(config.socket, "1.41", std::chrono::seconds(30));
  EXPECT_TRUE(e.inspect_image(created.image_digest).has_value());
}

TEST_F(ImagePull, ImagePullSaysWhetherItPulledAndPinsTheSameDigest) {
  remove_pulled();
  docker_sandbox sandbox(config, host.sdk_host());
  auto ctx = host.context();
  const auto first = sandbox.image_pull({{"image", pushed_ref}}, ctx);
  EXPECT_TRUE(first["pulled"].get<bool>());
  EXPECT_EQ(first["digest"], "127.0.0.1:5000/r2r/busybox@" + world().digest);
  // The per-layer events come back for a caller that shows its own progress.
  ASSERT_FALSE(first["progress"].empty()) << first.dump();
  EXPECT_THAT(first["progress"].dump(), HasSubstr("complete"));
  const auto second = sandbox.image_pull({{"image", pushed_ref}}, ctx);
  EXPECT_FALSE(second["pulled"].get<bool>());
  EXPECT_TRUE(second["progress"].empty());
  EXPECT_EQ(second["digest"], first["digest"]);
  EXPECT_EQ(sandbox.image_inspect({{"image", pushed_ref}})["digest"], first["digest"]);
}

TEST_F(ImagePull, AnImageTheRegistryLacksFailsWithTheEnginesReason) {
  docker_sandbox sandbox(config, host.sdk_host());
  auto ctx = host.context();
  try {
    sandbox.image_pull({{"image", "127.0.0.1:5000/r2r/absent:9"}}, ctx);
    FAIL() << "pulled an image the registry does not have";
  } catch (const r2r::sdk::failed& e) {
    EXPECT_THAT(e.what(), HasSubstr("127.0.0.1:5000/r2r/absent:9"));
    EXPECT_THAT(e.what(), ::testing::AnyOf(HasSubstr("not found"), HasSubstr("unknown")));
  }
}

// Podman pulls from a plain-HTTP registry only when its registries.conf says that registry is
// insecure (dockerd trusts 127.0.0.0/8 by itself): with the entry the pull works through the same
// Engine API call and pins the registry's digest; without it the pull fails with podman's reason.
class ImagePullPodman : public ImagePull {
 protected:
  void SetUp() override {
    ImagePull::SetUp();
    if (IsSkipped()) return;
    if (!world().podman_why.empty()) GTEST_SKIP() << world().podman_why;
  }
};

TEST_F(ImagePullPodman, PullsOverPlainHttpWithARegistriesConfEntryAndPinsTheDigest) {
  config.socket = world().podman->socket();
  config.state_dir = (world().podman->dir() / "state").string();
  docker_sandbox sandbox(config, host.sdk_host());
  auto ctx = host.context();
  const auto pulled = sandbox.image_pull({{"image", pushed_ref}}, ctx);
  EXPECT_TRUE(pulled["pulled"].get<bool>()) << pulled.dump();
  EXPECT_EQ(pulled["digest"], "127.0.0.1:5000/r2r/busybox@" + world().digest);
  sb::create_request plan;
  plan.image = pushed_ref;
  const auto created = sandbox.create(plan);
  sb::exec_request run;
  run.sandbox_id = created.sandbox_id;
  run.command = "echo pulled-by-podman";
  EXPECT_EQ(sandbox.exec(run, ctx).stdout_text, "pulled-by-podman\n");
  EXPECT_EQ(created.image_digest, pulled["digest"]);
}

TEST_F(ImagePullPodman, WithoutTheEntryThePlainHttpPullFailsWithPodmansReason) {
  config.socket = world().strict->socket();
  config.state_dir = (world().strict->dir() / "state").string();
  docker_sandbox sandbox(config, host.sdk_host());
  auto ctx = host.context();
  try {
    const auto pulled = sandbox.image_pull({{"image", pushed_ref}}, ctx);
    FAIL() << "podman pulled over plain HTTP without a registries.conf entry: " << pulled.dump();
  } catch (const r2r::sdk::failed& e) {
    EXPECT_THAT(e.what(), HasSubstr(pushed_ref));
    EXPECT_THAT(e.what(), HasSubstr("HTTP")) << e.what();
  }
  docker_engine e(config.socket, "1.41", std::chrono::seconds(30));
  EXPECT_FALSE(e.inspect_image(pushed_ref).has_value());
}

}  // namespace
