// SPDX-License-Identifier: MIT
// Integration tests of r2r.sandbox.docker against real engines started by engine_fixture: dockerd
// always, Podman's Docker-compatible service too when podman is installed. A test skips, saying
// why, only when its engine cannot start here.
#include "docker_sandbox.hpp"
#include "docker_engine.hpp"
#include "engine_fixture.hpp"
#include "output_encoding.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <grp.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace sb = r2r::sdk::sandbox;
using r2r::plugins::sandbox::docker::docker_sandbox;
using r2r::plugins::sandbox::docker::testing::engine_fixture;
using ::testing::HasSubstr;
using ::testing::Not;

class DockerSandbox : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    engine = std::make_unique<engine_fixture>(GetParam());
    if (!engine->ok()) GTEST_SKIP() << GetParam() << " cannot start here: " << engine->why();
    config.socket = engine->socket();
    config.default_image = engine_fixture::image;
    // This engine has no network at all (--bridge=none); the policy has its own suite
    // (network_policy_test.cpp) with an engine network and a package index.
    config.network = "none";
    config.state_dir = (engine->dir() / "state").string();
    config.default_limits = {256LL << 20, 1.0, 128, 16LL << 20};
    config.default_timeout_s = 60;
    config.max_output_bytes = 64 * 1024;
    sandbox = std::make_unique<docker_sandbox>(config, host.sdk_host());
    workspace = engine->dir() / "ws";
    fs::create_directories(workspace);
  }
  void TearDown() override {
    if (sandbox) {
      sandbox.reset();  // the destructor removes what this instance made
      r2r::plugins::sandbox::docker::docker_engine e(engine->socket(), "1.41", std::chrono::seconds(30));
      EXPECT_THAT(e.containers_with_label(config.label, ""), ::testing::IsEmpty()) << "labelled container left";
      EXPECT_THAT(e.images_with_label(config.label, ""), ::testing::IsEmpty()) << "labelled image left";
    }
    engine.reset();
  }

  std::string make(sb::create_request plan = {}) {
    if (plan.workspace.empty()) plan.workspace = workspace.string();
    return sandbox->create(plan).sandbox_id;
  }
  sb::exec_response run(const std::string& id, const std::string& command, double timeout_s = 0, std::int64_t cap = 0) {
    sb::exec_request r;
    r.sandbox_id = id;
    r.command = command;
    r.timeout_s = timeout_s;
    r.max_output_bytes = cap;
    auto ctx = host.context();
    return sandbox->exec(r, ctx);
  }

  std::unique_ptr<engine_fixture> engine;
  r2r::sdk::testing::fake_host host;
  docker_sandbox::config config;
  std::unique_ptr<docker_sandbox> sandbox;
  fs::path workspace;
};

TEST_P(DockerSandbox, InfoNamesTheEngine) {
  const auto info = sandbox->info({});
  EXPECT_EQ(info.engine, GetParam());
  EXPECT_FALSE(info.version.empty());
  EXPECT_EQ(info.endpoint, engine->socket());
}

// A read-only mount (the run's asset cache): readable inside, never writable, and a mount on the
// workspace is refused before any container exists.
TEST_P(DockerSandbox, AMountIsReadableButNeverWritable) {
  const fs::path assets = engine->dir() / "assets";
  fs::create_directories(assets / "hf");
  std::ofstream(assets / "hf" / "config.json") << "{\"hidden_size\": 64}\n";
  sb::create_request plan;
  plan.mounts = {{assets.string(), "/opt/r2r-assets"}};
  const auto id = make(plan);
  EXPECT_EQ(run(id, "cat /opt/r2r-assets/hf/config.json").stdout_text, "{\"hidden_size\": 64}\n");
  const auto write = run(id, "echo x > /opt/r2r-assets/hf/config.json || exit 9; echo y > /opt/r2r-assets/new");
  EXPECT_EQ(write.exit_code, 9) << write.stdout_text << write.stderr_text;
  EXPECT_NE(run(id, "touch /opt/r2r-assets/new").exit_code, 0);
  EXPECT_FALSE(fs::exists(assets / "new"));
  std::ifstream in(assets / "hf" / "config.json");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), {}), "{\"hidden_size\": 64}\n");
  // The workspace stays writable beside it.
  EXPECT_EQ(run(id, "echo kept > /workspace/f").exit_code, 0);

  sb::create_request over;
  over.mounts = {{assets.string(), "/workspace/models"}};
  EXPECT_THROW(make(over), r2r::sdk::invalid_argument);
}

TEST_P(DockerSandbox, ExitCodesAndSeparatedStreams) {
  const auto id = make();
  auto ok = run(id, "echo out; echo err >&2; echo out2");
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.stdout_text, "out\nout2\n");
  EXPECT_EQ(ok.stderr_text, "err\n");
  EXPECT_FALSE(ok.timed_out);
  EXPECT_FALSE(ok.oom_killed);
  EXPECT_EQ(run(id, "exit 3").exit_code, 3);
  EXPECT_EQ(run(id, "false").exit_code, 1);
  const auto missing = run(id, "no-such-tool");
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_THAT(missing.stderr_text, HasSubstr("not found"));
  EXPECT_EQ(run(id, "pwd").stdout_text, "/workspace\n");
}

TEST_P(DockerSandbox, OomKillIsReportedAsSuch) {
  sb::create_request plan;
  plan.limits.memory_bytes = 32LL << 20;
  const auto id = make(plan);
  const auto r = run(id, "x=aaaaaaaaaaaaaaaa; while :; do x=\"$x$x\"; done", 60);
  EXPECT_EQ(r.exit_code, 137);
  EXPECT_TRUE(r.oom_killed);
  EXPECT_FALSE(r.timed_out);
  const auto plain_kill = run(id, "kill -9 $$");  // a SIGKILL that is not an OOM
  EXPECT_EQ(plain_kill.exit_code, 137);
  EXPECT_FALSE(plain_kill.oom_killed);
}

TEST_P(DockerSandbox, TimeoutKillsTheWholeCommand) {
  const auto id = make();
  const auto started = std::chrono::steady_clock::now();
  const auto r = run(id, "sleep 31 & sleep 32; echo not-reached", 1.5);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 137);
  EXPECT_LT(took, std::chrono::seconds(10));
  EXPECT_THAT(r.stdout_text, Not(HasSubstr("not-reached")));
  const auto ps = run(id, "for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null; echo; done | tr '\\0' ' '");
  EXPECT_THAT(ps.stdout_text, Not(HasSubstr("sleep 31"))) << ps.stdout_text;
  EXPECT_THAT(ps.stdout_text, Not(HasSubstr("sleep 32"))) << ps.stdout_text;
}

TEST_P(DockerSandbox, FiftyMegabytesAreTruncatedWithoutMemoryBlowUp) {
  const auto id = make();
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const auto r =
      run(id, "yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -c 52428800; echo tail-end", 120, 65536);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_bytes, 52428800 + 9);
  EXPECT_TRUE(r.truncated);
  EXPECT_LT(r.stdout_text.size(), 65536u + 100u);
  EXPECT_THAT(r.stdout_text, HasSubstr("bytes of output truncated]"));
  EXPECT_THAT(r.stdout_text, ::testing::EndsWith("tail-end\n"));  // the tail is kept
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 20 * 1024)
      << "max RSS grew by " << (after.ru_maxrss - before.ru_maxrss) << " KiB";
}

TEST_P(DockerSandbox, BinaryOutputSurvivesExactly) {
  const auto id = make();
  const auto r = run(id, "printf '\\377\\000\\001abc\\200'");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_encoding, "base64");
  EXPECT_EQ(r2r::plugins::sandbox::base64_decode(r.stdout_text), std::string("\xff\x00\x01"
                                                                             "abc\x80",
                                                                             7));
  EXPECT_EQ(r.stdout_bytes, 7);
}

TEST_P(DockerSandbox, LimitsAndIsolationAreInEffect) {
  sb::create_request plan;
  plan.limits = {96LL << 20, 0.5, 64, 8LL << 20};
  const auto id = make(plan);
  const auto mem =
      run(id, "cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max");
  EXPECT_EQ(mem.stdout_text, std::to_string(96LL << 20) + "\n");
  const auto pids = run(id, "cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max");
  EXPECT_EQ(pids.stdout_text, "64\n");
  const auto cpu = run(id, "cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null || cat /sys/fs/cgroup/cpu.max");
  EXPECT_THAT(cpu.stdout_text, HasSubstr("50000"));
  const auto net = run(id, "cat /proc/net/dev");
  EXPECT_THAT(net.stdout_text, HasSubstr("lo:"));
  EXPECT_THAT(net.stdout_text, Not(HasSubstr("eth0")));
  const auto mounts = run(id, "cat /proc/mounts");
  EXPECT_THAT(mounts.stdout_text, HasSubstr(" /workspace "));
  const auto shm = run(id, "grep ' /dev/shm ' /proc/mounts");
  EXPECT_THAT(shm.stdout_text, HasSubstr("size=8192k"));
  const auto status = run(id, "grep NoNewPrivs /proc/self/status");
  EXPECT_THAT(status.stdout_text, HasSubstr("1"));
  // The workspace is shared with the host, read-write.
  run(id, "echo from-inside > /workspace/hello");
  std::ifstream in(workspace / "hello");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "from-inside");
}

TEST_P(DockerSandbox, FakeGpuDevicesArePassedThroughAndPinned) {
  sb::create_request plan;
  sb::gpu g;
  g.index = 1;
  g.render_minor = 129;
  g.host_kfd = "/dev/null";
  g.host_render = "/dev/zero";
  g.visible_devices = "0";
  plan.gpu = g;
  const auto id = make(plan);
  const auto devs = run(id, "ls /dev/kfd /dev/dri/; head -c 4 /dev/dri/renderD129 | wc -c");
  EXPECT_EQ(devs.exit_code, 0) << devs.stderr_text;
  EXPECT_THAT(devs.stdout_text, HasSubstr("/dev/kfd"));
  EXPECT_THAT(devs.stdout_text, HasSubstr("renderD129"));
  EXPECT_THAT(devs.stdout_text, HasSubstr("4\n"));  // /dev/zero behind the render node
  const auto env = run(id, "env");
  EXPECT_THAT(env.stdout_text, HasSubstr("HIP_VISIBLE_DEVICES=0"));
  EXPECT_THAT(env.stdout_text, HasSubstr("ROCR_VISIBLE_DEVICES=0"));
  if (const group* video = getgrnam("video"); video != nullptr) {
    EXPECT_THAT(run(id, "id -G").stdout_text, HasSubstr(std::to_string(video->gr_gid)));
  }
}

TEST_P(DockerSandbox, CheckpointThenDestructiveCommandThenRollbackRestoresFiles) {
  const auto id = make();
  ASSERT_EQ(run(id, "echo precious > /workspace/data.txt && mkdir -p /opt && echo sys > /opt/state").exit_code, 0);
  const auto cp = sandbox->checkpoint({id, "before"});
  EXPECT_FALSE(cp.image.empty());
  ASSERT_EQ(run(id, "rm -rf /workspace/* /opt/state; echo junk > /workspace/junk").exit_code, 0);
  EXPECT_EQ(run(id, "cat /workspace/data.txt").exit_code, 1);
  sandbox->rollback({id, "before"});
  EXPECT_EQ(run(id, "cat /workspace/data.txt /opt/state").stdout_text, "precious\nsys\n");
  EXPECT_EQ(run(id, "ls /workspace").stdout_text, "data.txt\n");
  EXPECT_THROW(sandbox->rollback({id, "nope"}), r2r::sdk::invalid_argument);
  EXPECT_THROW(sandbox->checkpoint({id, "before"}), r2r::sdk::invalid_argument);
}

TEST_P(DockerSandbox, CopyInAndOutThroughArchives) {
  const auto id = make();
  const fs::path src = engine->dir() / "src";
  fs::create_directories(src / "sub");
  std::ofstream(src / "sub" / "a.bin", std::ios::binary) << std::string("\x00\x01\xff", 3);
  const auto in = sandbox->copy_in({id, src.string(), "/tmp"});
  EXPECT_GT(in.bytes, 0);
  EXPECT_EQ(run(id, "wc -c < /tmp/src/sub/a.bin").stdout_text, "3\n");
  run(id, "mkdir -p /tmp/out && echo result > /tmp/out/r.txt");
  const fs::path dest = engine->dir() / "dest";
  fs::create_directories(dest);
  sandbox->copy_out({id, dest.string(), "/tmp/out"});
  std::ifstream result(dest / "out" / "r.txt");
  std::string line;
  std::getline(result, line);
  EXPECT_EQ(line, "result");
}

TEST_P(DockerSandbox, BuildsFromAGeneratedDockerfileAndInspects) {
  r2r::plugins::sandbox::docker::build_request b;
  b.from = engine_fixture::image;
  b.files = {{"hello.txt", "hi from context\n"}};
  b.run = {"echo built > /opt/r2r/marker"};
  b.env = {{"R2R_TEST", "yes"}};
  const auto built = sandbox->image_build(b);
  EXPECT_THAT(built["dockerfile"].get<std::string>(), HasSubstr("FROM local/busybox"));
  const auto inspected = sandbox->image_inspect({{"image", built["tag"]}});
  EXPECT_TRUE(inspected["exists"].get<bool>());
  EXPECT_EQ(inspected["labels"][config.label].get<std::string>(), "1");
  EXPECT_FALSE(sandbox->image_inspect({{"image", "local/never-built"}})["exists"].get<bool>());
  sb::create_request plan;
  plan.image = built["tag"].get<std::string>();
  const auto id = make(plan);
  EXPECT_EQ(run(id, "cat /opt/r2r/hello.txt /opt/r2r/marker; echo $R2R_TEST").stdout_text,
            "hi from context\nbuilt\nyes\n");
}

// The context form: a directory's Dockerfile built as it is (the run's verify stage rebuilds the
// bundle this way); a failing instruction is named in the error.
TEST_P(DockerSandbox, BuildsAContextDirectoryAsItIsAndNamesTheFailingStep) {
  const fs::path ctx = engine->dir() / "context";
  fs::create_directories(ctx);
  std::ofstream(ctx / "data.txt") << "from the context\n";
  std::ofstream(ctx / "Dockerfile") << "FROM " << engine_fixture::image
                                    << "\nCOPY data.txt /opt/data.txt\nRUN echo ok > /opt/ok\n";
  const auto built = sandbox->image_build(nlohmann::json{
      {"context_dir", ctx.string()},
      {"nocache", true}}.get<r2r::plugins::sandbox::docker::build_request>());
  EXPECT_THAT(built["dockerfile"].get<std::string>(), HasSubstr("COPY data.txt"));
  EXPECT_EQ(built["network"], "none");
  sb::create_request plan;
  plan.image = built["image"].get<std::string>();
  const auto id = make(plan);
  EXPECT_EQ(run(id, "cat /opt/data.txt /opt/ok").stdout_text, "from the context\nok\n");

  std::ofstream(ctx / "Dockerfile", std::ios::trunc)
      << "FROM " << engine_fixture::image << "\nRUN true\nRUN echo failing-step; exit 7\n";
  try {
    sandbox->image_build(
        nlohmann::json{{"context_dir", ctx.string()}}.get<r2r::plugins::sandbox::docker::build_request>());
    FAIL() << "a failing RUN built";
  } catch (const r2r::sdk::failed& e) {
    EXPECT_THAT(e.what(), ::testing::ContainsRegex("(Step|STEP) 3/[0-9]+ ?: RUN echo failing-step; exit 7"));
  }
}

TEST_P(DockerSandbox, CrashThenCleanupLeavesNothingLabelled) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a run that dies without destroying anything
    r2r::sdk::testing::fake_host h;
    auto* leaked = new docker_sandbox(config, h.sdk_host());
    sb::create_request plan;
    plan.workspace = workspace.string();
    const auto id = leaked->create(plan).sandbox_id;
    leaked->checkpoint({id, "c1"});
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  r2r::plugins::sandbox::docker::docker_engine e(engine->socket(), "1.41", std::chrono::seconds(30));
  ASSERT_EQ(e.containers_with_label(config.label, "").size(), 1u);
  ASSERT_FALSE(e.images_with_label(config.label, "").empty());
  // An unrelated, unlabelled container must survive cleanup.
  const auto bystander = e.create_container({{"Image", engine_fixture::image}, {"Cmd", {"true"}}}, "bystander");
  const auto removed = sandbox->cleanup({true});
  EXPECT_GE(removed.removed.size(), 2u);
  EXPECT_TRUE(e.containers_with_label(config.label, "").empty());
  EXPECT_TRUE(e.images_with_label(config.label, "").empty());
  EXPECT_NO_THROW(e.inspect_container(bystander));
  e.remove_container(bystander);
}

// The attack on resume: an executor SIGKILLed mid-command leaves its container running the command
// on the run's workspace; the resumed attempt creates a new sandbox on that workspace. The earlier
// container must be gone (its command no longer writing) when create returns; a stale container on
// another workspace is not touched.
TEST_P(DockerSandbox, ANewSandboxOnTheSameWorkspaceRemovesAnEarlierSandboxsContainer) {
  const fs::path other = engine->dir() / "ws-other";
  fs::create_directories(other);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the attempt that is killed mid-command
    r2r::sdk::testing::fake_host h;
    auto* leaked = new docker_sandbox(config, h.sdk_host());
    sb::create_request plan;
    plan.workspace = other.string();
    (void)leaked->create(plan);
    plan.workspace = workspace.string();
    const auto id = leaked->create(plan).sandbox_id;
    sb::exec_request r;
    r.sandbox_id = id;
    r.command = "i=0; while :; do i=$((i+1)); echo $i > /workspace/counter; sleep 0.02; done";
    r.timeout_s = 120;
    auto ctx = h.context();
    (void)leaked->exec(r, ctx);
    _exit(0);
  }
  const auto counter = workspace / "counter";
  for (int i = 0; i < 1000 && !fs::exists(counter); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(counter));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  r2r::plugins::sandbox::docker::docker_engine e(engine->socket(), "1.41", std::chrono::seconds(30));
  ASSERT_EQ(e.containers_with_label(config.label, "").size(), 2u);
  const auto id = make();
  const auto read = [&] {
    std::ifstream in(counter);
    std::string line;
    std::getline(in, line);
    return line;
  };
  const std::string after_create = read();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(read(), after_create) << "the earlier container still writes into the workspace";
  EXPECT_EQ(e.containers_with_label(config.label + ".workspace", workspace.string()).size(), 1u);
  EXPECT_EQ(e.containers_with_label(config.label + ".workspace", other.string()).size(), 1u);
  EXPECT_EQ(run(id, "echo fresh").stdout_text, "fresh\n");
  (void)sandbox->cleanup({true});
}

TEST_P(DockerSandbox, DestroyRemovesTheContainerAndItsCheckpoints) {
  const auto id = make();
  sandbox->checkpoint({id, "one"});
  const auto removed = sandbox->destroy({id});
  EXPECT_EQ(removed.removed.size(), 2u);
  EXPECT_THROW(run(id, "true"), r2r::sdk::invalid_argument);
}

std::vector<std::string> engines() {
  std::vector<std::string> list{"docker"};
  if (access("/usr/bin/podman", X_OK) == 0) list.push_back("podman");
  return list;
}

INSTANTIATE_TEST_SUITE_P(Engines, DockerSandbox, ::testing::ValuesIn(engines()),
                         [](const auto& param_info) { return param_info.param; });

TEST(DockerSandboxNoEngine, EveryMethodIsUnavailableWhenTheSocketIsAbsent) {
  r2r::sdk::testing::fake_host host;
  docker_sandbox::config c;
  c.socket = "/nonexistent/r2r/docker.sock";
  docker_sandbox s(c, host.sdk_host());
  try {
    s.info({});
    FAIL() << "info succeeded without an engine";
  } catch (const r2r::sdk::unavailable& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/r2r/docker.sock"));
  }
  sb::create_request plan;
  plan.image = "x";
  EXPECT_THROW(s.create(plan), r2r::sdk::unavailable);
  EXPECT_THROW(s.cleanup({true}), r2r::sdk::unavailable);
}

}  // namespace
