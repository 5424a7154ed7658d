// SPDX-License-Identifier: MIT
// The network policy of r2r.sandbox.local against the real bubblewrap and a real package index.
// Where the index is served: on the loopback of a network namespace this test process owns
// (unshare(CLONE_NEWNET) before anything starts). bwrap's --share-net shares the *caller's*
// network namespace, so an exec let out reaches exactly that namespace: the test's traffic never
// touches the host's interfaces, and the index cannot be confused with anything the host runs.
// That is why this suite is its own executable: the unshare changes the whole process.
// Every attack is paired with a control showing the same probe reaches the index when allowed.
#include "local_sandbox.hpp"

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
#include <filesystem>
#include <memory>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace sb = r2r::sdk::sandbox;
using r2r::plugins::sandbox::local::local_sandbox;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* index_url = "http://127.0.0.1:8080/simple";
constexpr const char* probe =
    "/usr/bin/python3 -c 'import urllib.request; urllib.request.urlopen(\"http://127.0.0.1:8080/simple/\", "
    "timeout=3); print(\"reached\")'";
constexpr const char* install_app =
    "/usr/bin/python3 -m pip install --no-cache-dir --disable-pip-version-check --timeout 3 --retries 0 "
    "--target /workspace/site r2r-app";

bool index_answers() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(8080);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(s);
  return ok;
}

// The private network namespace with its loopback up and the index served on it.
struct index_namespace {
  std::string why;  // empty when ready
  fs::path dir;
  pid_t server = -1;

  index_namespace() {
    if (unshare(CLONE_NEWNET) != 0) {
      why = std::string("cannot create a network namespace: ") + std::strerror(errno);
      return;
    }
    const int s = socket(AF_INET, SOCK_DGRAM, 0);
    ifreq lo{};
    std::strncpy(lo.ifr_name, "lo", IFNAMSIZ - 1);
    if (ioctl(s, SIOCGIFFLAGS, &lo) != 0 || (lo.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &lo)) != 0) {
      why = std::string("cannot bring up lo in the test's namespace: ") + std::strerror(errno);
    }
    close(s);
    if (!why.empty()) return;
    char templ[] = "/tmp/r2r-local-net-XXXXXX";
    if (mkdtemp(templ) == nullptr) {
      why = "cannot create a temporary directory";
      return;
    }
    dir = templ;
    const std::string make = "/usr/bin/python3 " R2R_PACKAGE_INDEX_SCRIPT " " + (dir / "index").string();
    if (std::system(make.c_str()) != 0) {
      why = "writing the package index failed: " + make;
      return;
    }
    const std::string root = (dir / "index").string();
    server = fork();
    if (server == 0) {
      setpgid(0, 0);
      freopen("/dev/null", "w", stdout);
      freopen("/dev/null", "w", stderr);
      execl("/usr/bin/python3", "python3", "-m", "http.server", "8080", "--bind", "127.0.0.1", "--directory",
            root.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 100 && !index_answers(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!index_answers()) why = "the index server (python3 -m http.server) did not answer within 10 s";
  }
  ~index_namespace() {
    if (server > 0) {
      kill(server, SIGKILL);
      waitpid(server, nullptr, 0);
    }
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

class LocalNetworkPolicy : public ::testing::Test {
 protected:
  static index_namespace& ns() {
    static index_namespace n;
    return n;
  }
  void SetUp() override {
    if (!ns().why.empty()) GTEST_SKIP() << ns().why;
    fs::create_directories(ns().dir / "state");
    workspace = ns().dir / ("ws" + std::to_string(++counter));
    fs::create_directories(workspace);
    config.state_dir = (ns().dir / "state").string();
    config.default_timeout_s = 120;
    config.max_output_bytes = 64 * 1024;
    config.package_index.index_url = index_url;
    sandbox = std::make_unique<local_sandbox>(config, host.sdk_host());
    try {
      sandbox->info({});
    } catch (const r2r::sdk::unavailable& e) {
      GTEST_SKIP() << "bubblewrap unavailable: " << e.what();
    }
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

  static inline int counter = 0;
  r2r::sdk::testing::fake_host host;
  local_sandbox::config config;
  std::unique_ptr<local_sandbox> sandbox;
  fs::path workspace;
  std::string id;
};

TEST_F(LocalNetworkPolicy, InstallPolicyInstallExecInstallsBothWheelsFromTheIndex) {
  EXPECT_EQ(make().network, "install");
  const auto installed = run(install_app, true);
  ASSERT_EQ(installed.exit_code, 0) << installed.stdout_text << installed.stderr_text;
  EXPECT_TRUE(installed.network);
  EXPECT_THAT(installed.stdout_text, HasSubstr("Successfully installed r2r-app-1.0 r2r-base-1.0"));
  const auto used = run("PYTHONPATH=/workspace/site /usr/bin/python3 -c 'import r2r_app; print(r2r_app.VALUE)'");
  EXPECT_EQ(used.stdout_text, "app-ok+base-ok\n") << used.stderr_text;
  EXPECT_FALSE(used.network);
}

TEST_F(LocalNetworkPolicy, InstallPolicyPlainExecsCannotReachTheIndex) {
  make("install");
  const std::string explicit_index = std::string(install_app) + " --index-url " + index_url;
  for (const std::string& attack :
       {std::string(probe), explicit_index, "sh -c '" + explicit_index + "'",
        std::string("sh -c '/usr/bin/python3 -m pip download --no-cache-dir --timeout 3 --retries 0 -d /tmp/dl "
                    "--index-url ") +
            index_url + " r2r-base'"}) {
    const auto r = run(attack);
    EXPECT_NE(r.exit_code, 0) << attack << "\n" << r.stdout_text;
    EXPECT_THAT(r.stdout_text, Not(HasSubstr("reached"))) << attack;
    EXPECT_THAT(r.stdout_text, Not(HasSubstr("Successfully"))) << attack;
    EXPECT_FALSE(r.network);
  }
  EXPECT_THAT(run("env").stdout_text, Not(HasSubstr("PIP_INDEX_URL")));
  EXPECT_THAT(run("env", true).stdout_text, HasSubstr(std::string("PIP_INDEX_URL=") + index_url));
  // Control: the same probe, marked as an install, reaches the index; outside, the test does too.
  ASSERT_TRUE(index_answers());
  EXPECT_THAT(run(probe, true).stdout_text, HasSubstr("reached"));
}

TEST_F(LocalNetworkPolicy, NonePolicyDeniesInstallsToo) {
  EXPECT_EQ(make("none").network, "none");
  const auto installed = run(install_app, true);
  EXPECT_NE(installed.exit_code, 0);
  EXPECT_FALSE(installed.network);
  EXPECT_THAT(run(probe, true).stdout_text, Not(HasSubstr("reached")));
}

TEST_F(LocalNetworkPolicy, AlwaysPolicyIsRecordedAndReachesFromEveryExec) {
  EXPECT_EQ(make("always").network, "always");
  const auto r = run(probe);
  EXPECT_THAT(r.stdout_text, HasSubstr("reached")) << r.stderr_text;
  EXPECT_TRUE(r.network);
}

TEST_F(LocalNetworkPolicy, ATimedOutInstallLeavesNothingThatReachesTheIndex) {
  make();
  // Attack: the install leaves a prober behind and then hangs past its timeout.
  const auto hung = run(std::string("(for i in $(seq 1 20); do ") + probe +
                            " && echo reached >> /workspace/leak; sleep 0.25; done) & sleep 60",
                        true, 2);
  EXPECT_TRUE(hung.timed_out);
  const auto size_after_kill = fs::exists(workspace / "leak") ? fs::file_size(workspace / "leak") : 0;
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const auto size_later = fs::exists(workspace / "leak") ? fs::file_size(workspace / "leak") : 0;
  EXPECT_EQ(size_after_kill, size_later) << "a process of the timed-out install kept reaching the index";
  EXPECT_THAT(run(probe).stdout_text, Not(HasSubstr("reached")));
}

}  // namespace
