// SPDX-License-Identifier: MIT
// The bundle's Dockerfile rebuilds the final environment from the bundle alone: a real dockerd,
// started by this test under its temporary directory and stopped by PID, builds the bundle
// directory as the context on a busybox base image built locally, applying the patch to the
// repository and running the plan's steps and the executor's successful installs in order.
// Skips, saying why, only when dockerd cannot start here.
#include "bundle_fixture.hpp"

#include "../unit/test_support.hpp"

#include <r2r/report/bundle.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

namespace {

namespace fs = std::filesystem;
using r2r::test::run_process;
using ::testing::HasSubstr;

/// A dockerd with its own data root, exec root and socket under `dir`; stopped by PID.
class private_dockerd {
 public:
  explicit private_dockerd(const fs::path& dir) : socket_((dir / "d.sock").string()), log_(dir / "dockerd.log") {
    const auto r = run_process("(dockerd --data-root '" + (dir / "data").string() + "' --exec-root '" +
                               (dir / "x").string() + "' --pidfile '" + (dir / "d.pid").string() + "' -H 'unix://" +
                               socket_ + "' --storage-driver=overlay2 --iptables=false --bridge=none >'" +
                               log_.string() + "' 2>&1 & echo $!)");
    pid_ = std::atoi(r.out.c_str());
    for (int i = 0; i < 100 && pid_ > 0 && kill(pid_, 0) == 0; ++i) {
      if (docker("version --format '{{.Server.Version}}'").exit_code == 0) {
        ready_ = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  ~private_dockerd() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100 && kill(pid_, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (kill(pid_, 0) == 0) kill(pid_, SIGKILL);
  }
  bool ready() const { return ready_; }
  std::string log() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  r2r::test::process_result docker(const std::string& args) const {
    return run_process("DOCKER_BUILDKIT=0 DOCKER_HOST='unix://" + socket_ + "' docker " + args);
  }

 private:
  std::string socket_;
  fs::path log_;
  int pid_ = -1;
  bool ready_ = false;
};

TEST(BundleDocker, DockerBuildOfTheBundleRebuildsTheFinalEnvironment) {
  if (geteuid() != 0) GTEST_SKIP() << "dockerd needs root here; run the suite as root (CI does)";
  if (run_process("command -v dockerd && command -v docker").exit_code != 0)
    GTEST_SKIP() << "dockerd/docker not installed (scripts/bootstrap.sh installs docker.io)";
  r2r::test::temp_dir tmp;
  private_dockerd d(tmp.path());
  if (!d.ready()) GTEST_SKIP() << "dockerd could not start here:\n" << d.log();

  const auto root = tmp.path() / "rootfs";
  for (const char* sub : {"bin", "tmp", "etc"}) fs::create_directories(root / sub);
  fs::copy_file("/bin/busybox", root / "bin" / "busybox");
  for (const char* applet : {"sh", "echo", "cat", "patch", "ls", "tar", "mkdir"})
    fs::create_symlink("busybox", root / "bin" / applet);
  const auto imported =
      run_process("tar -C '" + root.string() + "' -c . | DOCKER_BUILDKIT=0 DOCKER_HOST='unix://" +
                  (tmp.path() / "d.sock").string() + "' docker import -c 'ENV PATH=/bin' - local/r2r-bundle-base:test");
  ASSERT_EQ(imported.exit_code, 0) << imported.err;

  const auto inputs_dir = tmp.path() / "inputs";
  fs::create_directories(inputs_dir);
  const auto in = r2r::test::make_bundle_inputs(inputs_dir);
  const auto bundle = tmp.path() / "bundle";
  const auto s = r2r::report::write_bundle(in, bundle);
  ASSERT_TRUE(s) << s.error().to_string();
  fs::remove_all(inputs_dir);  // the bundle alone

  const auto built = d.docker("build -q -t r2r-bundle-test:1 '" + bundle.string() + "'");
  ASSERT_EQ(built.exit_code, 0) << built.err << built.out;
  const auto ran = d.docker("run --rm --network=none r2r-bundle-test:1");
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out, "# ported by repo2rocm\nimport os\nprint('training')\n");  // the workload, patched
  const auto steps = d.docker("run --rm --network=none r2r-bundle-test:1 cat /tmp/r2r-steps.log");
  EXPECT_EQ(steps.out, "plan-step\nexecutor-install\n");  // the failed install is not replayed
  const auto label =
      d.docker("inspect --format '{{index .Config.Labels \"org.opencontainers.image.revision\"}}' r2r-bundle-test:1");
  EXPECT_EQ(label.out, std::string(40, 'a') + "\n");
  d.docker("rmi -f r2r-bundle-test:1 local/r2r-bundle-base:test");
}

}  // namespace
