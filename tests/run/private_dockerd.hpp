// SPDX-License-Identifier: MIT
// A dockerd private to one test: its own data and exec roots and unix socket under a temporary
// directory, started in the constructor and stopped by PID in the destructor; and local base
// images made from the host's static busybox (never pulled). network_service.hpp adds an internal
// network with a server container on it.
// OWNERSHIP: the object owns the daemon process. THREADING: one test thread.
#pragma once

#include "run_fixture.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>

namespace r2r::test {

/// Why a test that starts its own dockerd cannot run here (not root, no docker binaries); empty
/// when it can.
inline std::string private_dockerd_blocker() {
  if (geteuid() != 0) return "dockerd needs root here; run the suite as root (CI does)";
  if (run_process("command -v dockerd && command -v docker").exit_code != 0)
    return "dockerd/docker not installed (scripts/bootstrap.sh installs docker.io)";
  return {};
}

class private_dockerd {
 public:
  explicit private_dockerd(const std::filesystem::path& dir) : dir_(dir), socket_((dir / "d.sock").string()) {
    std::filesystem::create_directories(dir_);
    const auto r = r2r::test::run_process(
        "(dockerd --data-root '" + (dir_ / "data").string() + "' --exec-root '" + (dir_ / "x").string() +
        "' --pidfile '" + (dir_ / "dockerd.pid").string() + "' -H 'unix://" + socket_ +
        "' --storage-driver=overlay2 --iptables=false --ip6tables=false --bridge=none >'" +
        (dir_ / "dockerd.log").string() + "' 2>&1 & echo $!)");
    pid_ = std::atoi(r.out.c_str());
    for (int i = 0; i < 150 && pid_ > 0; ++i) {
      if (docker("version --format '{{.Server.Version}}'").exit_code == 0) {
        ready_ = true;
        break;
      }
      if (kill(pid_, 0) != 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  ~private_dockerd() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100 && kill(pid_, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (kill(pid_, 0) == 0) kill(pid_, SIGKILL);
  }
  private_dockerd(const private_dockerd&) = delete;
  private_dockerd& operator=(const private_dockerd&) = delete;

  bool ready() const { return ready_; }
  const std::string& socket() const { return socket_; }
  std::string log() const { return r2r::test::read_text(dir_ / "dockerd.log"); }
  r2r::test::process_result docker(const std::string& args) const {
    return r2r::test::run_process("DOCKER_HOST='unix://" + socket_ + "' docker " + args);
  }

  /// Imports a busybox rootfs as `tag` (no pull); `tools` maps extra /bin names to shell-script bodies.
  void import_base(const std::string& tag, const std::map<std::string, std::string>& tools) const {
    const std::filesystem::path root = dir_ / ("rootfs-" + std::to_string(std::hash<std::string>{}(tag)));
    for (const char* sub : {"bin", "tmp", "etc", "workspace", "opt/site"})
      std::filesystem::create_directories(root / sub);
    std::filesystem::copy_file(busybox_path(), root / "bin" / "busybox");
    for (const char* applet :
         {"sh",      "echo",     "cat",     "ls",   "mkdir",  "sleep",    "env",  "rm",     "true",
          "kill",    "pwd",      "grep",    "tr",   "test",   "head",     "tail", "sed",    "cut",
          "date",    "wc",       "mktemp",  "find", "tar",    "cp",       "mv",   "chmod",  "touch",
          "dirname", "basename", "timeout", "ps",   "printf", "false",    "id",   "uname",  "awk",
          "sort",    "uniq",     "xargs",   "tee",  "stat",   "readlink", "ln",   "mkfifo", "patch"})
      std::filesystem::create_symlink("busybox", root / "bin" / applet);
    std::ofstream(root / "etc" / "passwd") << "root:x:0:0:root:/root:/bin/sh\n";
    std::ofstream(root / "etc" / "group") << "root:x:0:\n";
    for (const auto& [name, body] : tools) {
      std::ofstream(root / "bin" / name) << "#!/bin/sh\n" << body;
      std::filesystem::permissions(root / "bin" / name,
                                   std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                       std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                       std::filesystem::perms::others_exec);
    }
    const auto r = r2r::test::run_process("tar -C '" + root.string() + "' -c . | DOCKER_HOST='unix://" + socket_ +
                                          "' docker import -c 'ENV PATH=/bin' - " + tag);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  /// The host's static busybox, or empty when none is installed.
  static std::filesystem::path busybox_path() {
    for (const char* p : {"/bin/busybox", "/usr/bin/busybox"})
      if (std::filesystem::exists(p)) return p;
    return {};
  }

 private:
  std::filesystem::path dir_;
  std::string socket_;
  int pid_ = -1;
  bool ready_ = false;
};

}  // namespace r2r::test
