// SPDX-License-Identifier: MIT
// r2r.sandbox.local against the real bubblewrap. Skips, saying why, only when bwrap is absent or
// cannot create namespaces on this host.
#include "local_sandbox.hpp"

#include "output_encoding.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace sb = r2r::sdk::sandbox;
using r2r::plugins::sandbox::local::local_sandbox;
using ::testing::HasSubstr;
using ::testing::Not;

class LocalSandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/r2r-local-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir = templ;
    fs::create_directories(dir / "ws");
    fs::create_directories(dir / "state");
    config.state_dir = (dir / "state").string();
    config.default_timeout_s = 30;
    config.max_output_bytes = 64 * 1024;
    sandbox = std::make_unique<local_sandbox>(config, host.sdk_host());
    try {
      sandbox->info({});
    } catch (const r2r::sdk::unavailable& e) {
      GTEST_SKIP() << "bubblewrap unavailable: " << e.what();
    }
    sb::create_request plan;
    plan.workspace = (dir / "ws").string();
    id = sandbox->create(plan).sandbox_id;
    const auto probe = run("true");
    if (probe.exit_code != 0) GTEST_SKIP() << "bwrap cannot create namespaces here: " << probe.stderr_text;
  }
  void TearDown() override {
    second.reset();
    sandbox.reset();
    fs::remove_all(dir);
  }
  sb::exec_response run(const std::string& command, double timeout_s = 0) {
    sb::exec_request r;
    r.sandbox_id = id;
    r.command = command;
    r.timeout_s = timeout_s;
    auto ctx = host.context();
    return sandbox->exec(r, ctx);
  }

  /// A second instance, as a resumed executor's would be: same config, its own state directory.
  local_sandbox& second_sandbox() {
    auto other = config;
    other.state_dir = (dir / "state2").string();
    fs::create_directories(other.state_dir);
    second = std::make_unique<local_sandbox>(other, second_host.sdk_host());
    return *second;
  }

  fs::path dir;
  r2r::sdk::testing::fake_host host;
  local_sandbox::config config;
  std::unique_ptr<local_sandbox> sandbox;
  std::string id;
  r2r::sdk::testing::fake_host second_host;
  std::unique_ptr<local_sandbox> second;
};

TEST_F(LocalSandbox, ExitCodesStreamsAndWorkspace) {
  const auto r = run("echo out; echo err >&2; pwd; exit 4");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.stdout_text, "out\n/workspace\n");
  EXPECT_EQ(r.stderr_text, "err\n");
  ASSERT_EQ(run("echo kept > /workspace/f").exit_code, 0);
  std::ifstream in(dir / "ws" / "f");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "kept");
}

// A read-only mount (the run's asset cache), beneath the sandbox's own /opt: readable inside,
// never writable; a mount on the workspace is refused.
TEST_F(LocalSandbox, AMountIsReadableButNeverWritable) {
  fs::create_directories(dir / "assets" / "hf");
  std::ofstream(dir / "assets" / "hf" / "config.json") << "{\"hidden_size\": 64}\n";
  sb::create_request plan;
  plan.workspace = (dir / "ws").string();
  plan.mounts = {{(dir / "assets").string(), "/opt/r2r-assets"}};
  id = sandbox->create(plan).sandbox_id;
  EXPECT_EQ(run("cat /opt/r2r-assets/hf/config.json").stdout_text, "{\"hidden_size\": 64}\n");
  EXPECT_NE(run("echo x > /opt/r2r-assets/hf/config.json").exit_code, 0);
  EXPECT_NE(run("touch /opt/r2r-assets/new").exit_code, 0);
  EXPECT_FALSE(fs::exists(dir / "assets" / "new"));
  std::ifstream in(dir / "assets" / "hf" / "config.json");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), {}), "{\"hidden_size\": 64}\n");
  EXPECT_EQ(run("mkdir -p /opt/r2r && echo kept > /opt/r2r/kept && echo kept > /workspace/f").exit_code, 0);

  sb::create_request over;
  over.workspace = (dir / "ws").string();
  over.mounts = {{(dir / "assets").string(), "/workspace"}};
  EXPECT_THROW(sandbox->create(over), r2r::sdk::invalid_argument);
}

TEST_F(LocalSandbox, DeniesTheNetwork) {
  // A listener on the host's loopback: reachable from the host, not from the sandbox.
  const int server = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(server, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(server, 4), 0);
  socklen_t len = sizeof addr;
  getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::string port = std::to_string(ntohs(addr.sin_port));
  const std::string connect = "bash -c 'echo hi > /dev/tcp/127.0.0.1/" + port + "' && echo connected";
  // Control: the same command outside any sandbox connects, so the probe itself works.
  ASSERT_EQ(std::system((connect + " >/dev/null 2>&1").c_str()), 0);
  const auto r = run(connect, 10);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.stdout_text, Not(HasSubstr("connected")));
  const auto ifaces = run("cat /proc/net/dev");
  EXPECT_THAT(ifaces.stdout_text, HasSubstr("lo:"));
  EXPECT_EQ(ifaces.stdout_text.find("eth"), std::string::npos);
  close(server);
}

TEST_F(LocalSandbox, DeniesWritesOutsideTheWorkspace) {
  const fs::path outside = dir / "outside";
  fs::create_directories(outside);
  const auto r = run("echo x > " + (outside / "escape").string() +
                     "; echo x > /usr/r2r-escape; echo x > /etc/r2r-escape;"
                     " touch /r2r-escape; echo x > /tmp/ok && echo tmp-ok");
  EXPECT_FALSE(fs::exists(outside / "escape"));
  EXPECT_FALSE(fs::exists("/usr/r2r-escape"));
  EXPECT_FALSE(fs::exists("/etc/r2r-escape"));
  EXPECT_FALSE(fs::exists("/r2r-escape"));
  EXPECT_THAT(r.stderr_text, HasSubstr("Read-only file system"));
  EXPECT_THAT(r.stdout_text, HasSubstr("tmp-ok"));  // a private /tmp is writable, and discarded
}

// The plan's first install step writes /opt/r2r/image-constraints.txt and every later pip step reads
// it: /opt persists from one command to the next, as in a container, and belongs to this sandbox
// alone (the host's /opt and other sandboxes never see it; destroy removes it).
TEST_F(LocalSandbox, OptPersistsBetweenCommandsAndStaysPrivate) {
  ASSERT_EQ(run("mkdir -p /opt/r2r && echo 'torch==2.7.1' > /opt/r2r/image-constraints.txt").exit_code, 0);
  const auto read = run("cat /opt/r2r/image-constraints.txt");
  EXPECT_EQ(read.exit_code, 0) << read.stderr_text;
  EXPECT_EQ(read.stdout_text, "torch==2.7.1\n");
  EXPECT_FALSE(fs::exists("/opt/r2r/image-constraints.txt"));

  sb::create_request other_plan;
  fs::create_directories(dir / "ws2");
  other_plan.workspace = (dir / "ws2").string();
  const std::string other = sandbox->create(other_plan).sandbox_id;
  sb::exec_request r;
  r.sandbox_id = other;
  r.command = "test -e /opt/r2r/image-constraints.txt && echo visible || echo absent";
  auto ctx = host.context();
  EXPECT_EQ(sandbox->exec(r, ctx).stdout_text, "absent\n");

  sb::destroy_request d;
  d.sandbox_id = id;
  const auto removed = sandbox->destroy(d).removed;
  bool opt_removed = false;
  for (const auto& what : removed) {
    if (what.find("-opt") == std::string::npos) continue;
    opt_removed = true;
    EXPECT_FALSE(fs::exists(what.substr(what.find(' ') + 1))) << what;
  }
  EXPECT_TRUE(opt_removed) << "destroy lists the sandbox's /opt directory";
}

TEST_F(LocalSandbox, TimeoutKillsTheProcessGroup) {
  const auto started = std::chrono::steady_clock::now();
  const auto r = run("sleep 4711 & sleep 4712; echo not-reached", 1);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 137);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(8));
  EXPECT_THAT(r.stdout_text, Not(HasSubstr("not-reached")));
  // No process of the command is left anywhere on the host: no `sleep 4711` or `sleep 4712`
  // (argv compared exactly; other processes may contain these digits in unrelated ids).
  for (const auto& p : fs::directory_iterator("/proc")) {
    std::ifstream cmd(p.path() / "cmdline", std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(cmd)), {});
    EXPECT_NE(text, std::string("sleep\0"
                                "4711\0",
                                11))
        << p.path();
    EXPECT_NE(text, std::string("sleep\0"
                                "4712\0",
                                11))
        << p.path();
  }
}

TEST_F(LocalSandbox, RlimitsApply) {
  EXPECT_EQ(run("ulimit -n").stdout_text, "4096\n");
  EXPECT_EQ(run("ulimit -c").stdout_text, "0\n");
  EXPECT_EQ(run("ulimit -t").stdout_text, "3600\n");
}

TEST_F(LocalSandbox, OutputIsCappedAndBinarySafe) {
  const auto big = run("yes abcdefgh | head -c 10000000");
  EXPECT_EQ(big.stdout_bytes, 10000000);
  EXPECT_TRUE(big.truncated);
  EXPECT_LT(big.stdout_text.size(), 64u * 1024 + 100);
  EXPECT_THAT(big.stdout_text, HasSubstr("bytes of output truncated]"));
  const auto bin = run("printf '\\377\\000z'");
  EXPECT_EQ(bin.stdout_encoding, "base64");
  EXPECT_EQ(r2r::plugins::sandbox::base64_decode(bin.stdout_text), std::string("\xff\x00z", 3));
}

std::string read_counter(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

bool wait_for_file(const fs::path& file) {
  for (int i = 0; i < 500 && !fs::exists(file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return fs::exists(file);
}

// The attack on resume: an executor SIGKILLed mid-command leaves its bwrap exec still running (or
// still dying) on the run's workspace; the resumed attempt restores the workspace and creates a new
// sandbox on it. Before the fix the old command kept writing there after create returned.
TEST_F(LocalSandbox, ANewSandboxOnTheSameWorkspaceEndsAnEarlierSandboxsCommands) {
  auto earlier = std::async(std::launch::async, [this] {
    return run("i=0; while :; do i=$((i+1)); echo $i > /workspace/counter; sleep 0.02; done", 60);
  });
  ASSERT_TRUE(wait_for_file(dir / "ws" / "counter"));
  auto& later = second_sandbox();
  sb::create_request plan;
  plan.workspace = (dir / "ws").string();
  const auto t0 = std::chrono::steady_clock::now();
  (void)later.create(plan);
  const std::string after_create = read_counter(dir / "ws" / "counter");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(read_counter(dir / "ws" / "counter"), after_create) << "the earlier command still writes";
  ASSERT_EQ(earlier.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const auto r = earlier.get();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

// False positives: a sandbox on another workspace (a name that only shares a prefix) is left alone.
TEST_F(LocalSandbox, ANewSandboxLeavesCommandsOnOtherWorkspacesAlone) {
  auto running = std::async(std::launch::async, [this] {
    return run("i=0; while [ $i -lt 60 ]; do i=$((i+1)); echo $i > /workspace/counter; sleep 0.02; done; echo done",
               60);
  });
  ASSERT_TRUE(wait_for_file(dir / "ws" / "counter"));
  fs::create_directories(dir / "ws2");
  auto& later = second_sandbox();
  sb::create_request plan;
  plan.workspace = (dir / "ws2").string();
  (void)later.create(plan);
  const auto r = running.get();
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stdout_text, "done\n");
  EXPECT_EQ(read_counter(dir / "ws" / "counter"), "60");
}

TEST_F(LocalSandbox, CheckpointRollbackAndCopies) {
  ASSERT_EQ(run("mkdir d && echo v1 > d/file").exit_code, 0);
  sandbox->checkpoint({id, "c1"});
  ASSERT_EQ(run("rm -rf d; echo junk > junk").exit_code, 0);
  sandbox->rollback({id, "c1"});
  EXPECT_EQ(run("cat d/file; ls").stdout_text, "v1\nd\n");
  const fs::path src = dir / "src.txt";
  std::ofstream(src) << "copied";
  sandbox->copy_in({id, src.string(), "/workspace/d"});
  EXPECT_EQ(run("cat d/src.txt").stdout_text, "copied");
  fs::create_directories(dir / "out");
  sandbox->copy_out({id, (dir / "out").string(), "/workspace/d"});
  EXPECT_TRUE(fs::exists(dir / "out" / "d" / "file"));
  EXPECT_THROW(sandbox->copy_out({id, (dir / "out").string(), "/etc"}), r2r::sdk::invalid_argument);
  EXPECT_THROW(sandbox->copy_in({id, src.string(), "/workspace/../etc"}), r2r::sdk::invalid_argument);
}

// Issue 19: `ln -s <outside> x` in the sandbox, then copy_in to /workspace/x wrote outside.
TEST_F(LocalSandbox, CopyInThroughALinkInTheWorkspaceIsRefused) {
  fs::create_directories(dir / "canary");
  std::ofstream(dir / "canary" / "secret") << "keep";
  fs::create_directory_symlink(dir / "canary", dir / "ws" / "x");
  fs::create_directory_symlink("..", dir / "ws" / "z");
  const fs::path src = dir / "probe.conf";
  std::ofstream(src) << "owned";
  try {
    sandbox->copy_in({id, src.string(), "/workspace/x"});
    ADD_FAILURE() << "copy_in went through the link";
  } catch (const r2r::sdk::invalid_argument& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("x: a path component is a symbolic link; refusing to follow it out of the workspace"));
  }
  EXPECT_THROW(sandbox->copy_in({id, src.string(), "/workspace/z"}), r2r::sdk::invalid_argument);
  EXPECT_FALSE(fs::exists(dir / "canary" / "probe.conf"));
  EXPECT_FALSE(fs::exists(dir / "probe.conf.1"));
  EXPECT_EQ(fs::directory_iterator(dir / "canary")->path().filename(), "secret");
  // A file link at the destination name is replaced, not written through.
  fs::create_symlink(dir / "canary" / "secret", dir / "ws" / "probe.conf");
  sandbox->copy_in({id, src.string(), "/workspace"});
  EXPECT_FALSE(fs::is_symlink(dir / "ws" / "probe.conf"));
  std::ifstream in(dir / "canary" / "secret");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "keep");
}

TEST_F(LocalSandbox, CopyOutKeepsLinksAsLinksAndSkipsFifos) {
  fs::create_directories(dir / "secret-dir");
  std::ofstream(dir / "secret-dir" / "secret") << "host only";
  ASSERT_EQ(
      run("mkdir d && ln -s " + (dir / "secret-dir").string() + " d/x && mkfifo d/pipe && echo a > d/a").exit_code, 0);
  fs::create_directories(dir / "out");
  sandbox->copy_out({id, (dir / "out").string(), "/workspace/d"});
  EXPECT_EQ(fs::read_symlink(dir / "out" / "d" / "x"), dir / "secret-dir");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir / "out" / "d" / "pipe")));
  EXPECT_TRUE(fs::exists(dir / "out" / "d" / "a"));
  // copy_out of a link itself copies the link; through it is refused.
  EXPECT_THROW(sandbox->copy_out({id, (dir / "out").string(), "/workspace/d/x/secret"}), r2r::sdk::invalid_argument);
}

TEST_F(LocalSandbox, CheckpointWithAFifoOddNamesAndLinksDoesNotHangAndRestoresThem) {
  ASSERT_EQ(run("mkfifo pipe && ln -s / root && ln -s .. up && printf n > \"$(printf 'new\\nline')\" && "
                "printf b > \"$(printf 'bad\\377')\" && printf d > ./-dash")
                .exit_code,
            0);
  sandbox->checkpoint({id, "odd"});
  ASSERT_EQ(run("rm -rf -- * && ls -A | wc -l").stdout_text, "0\n");
  sandbox->rollback({id, "odd"});
  EXPECT_EQ(fs::symlink_status(dir / "ws" / "pipe").type(), fs::file_type::fifo);
  EXPECT_EQ(fs::read_symlink(dir / "ws" / "root"), "/");
  EXPECT_EQ(fs::read_symlink(dir / "ws" / "up"), "..");
  EXPECT_TRUE(fs::exists(dir / "ws" / "new\nline"));
  EXPECT_TRUE(fs::exists(dir / "ws" / "bad\377"));
  EXPECT_TRUE(fs::exists(dir / "ws" / "-dash"));
}

TEST_F(LocalSandbox, FakeGpuIsPassedAndPinned) {
  sb::create_request plan;
  plan.workspace = (dir / "ws").string();
  sb::gpu g;
  g.render_minor = 128;
  g.host_kfd = "/dev/null";
  g.host_render = "/dev/zero";
  plan.gpu = g;
  id = sandbox->create(plan).sandbox_id;
  const auto r = run("ls /dev/kfd /dev/dri/renderD128 && echo $HIP_VISIBLE_DEVICES $ROCR_VISIBLE_DEVICES");
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("0 0"));
}

TEST(LocalSandboxNoBwrap, UnavailableWhenBwrapIsAbsent) {
  r2r::sdk::testing::fake_host host;
  local_sandbox::config c;
  c.bwrap = "/nonexistent/bwrap";
  local_sandbox s(c, host.sdk_host());
  EXPECT_THROW(s.info({}), r2r::sdk::unavailable);
  EXPECT_THROW(s.create({}), r2r::sdk::unavailable);
}

}  // namespace
