// SPDX-License-Identifier: MIT
// A test registry for the pull tests (the docker sandbox's image_pull_test and `repo2rocm run`'s
// run_pull_test): the calling process moves into a network namespace of its own (loopback only),
// then Debian's `docker-registry` (distribution 2.8, deletes enabled) is started on 127.0.0.1:5000
// there, so the registry, a private dockerd started afterwards and every pull stay inside the
// namespace (dockerd treats 127.0.0.0/8 registries as plain HTTP).
// OWNERSHIP: the object owns the registry process (stopped by PID) and its storage directory.
// PROCESSES: the unshare changes the whole process; use it in a test executable of its own,
// before any thread or child that must share the namespace is started.
#pragma once

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace r2r::plugins::sandbox::docker::testing {

class test_registry {
 public:
  static constexpr const char* host = "127.0.0.1:5000";

  /// Unshares the network namespace, brings up lo and starts the registry; why() says what failed.
  explicit test_registry(const std::filesystem::path& dir) : dir_(dir) {
    if (access("/usr/bin/docker-registry", X_OK) != 0) {
      why_ = "docker-registry is not installed (scripts/bootstrap.sh installs it)";
      return;
    }
    if (unshare(CLONE_NEWNET) != 0) {
      why_ = std::string("cannot create a network namespace: ") + std::strerror(errno);
      return;
    }
    const int s = socket(AF_INET, SOCK_DGRAM, 0);
    ifreq lo{};
    std::strncpy(lo.ifr_name, "lo", IFNAMSIZ - 1);
    const bool up = ioctl(s, SIOCGIFFLAGS, &lo) == 0 && (lo.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &lo)) == 0;
    close(s);
    if (!up) {
      why_ = std::string("cannot bring up lo: ") + std::strerror(errno);
      return;
    }
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "config.yml") << "version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: "
                                       << (dir_ / "data").string()
                                       << "\n  delete:\n    enabled: true\nhttp:\n  addr: " << host << "\n";
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      if (std::freopen((dir_ / "registry.log").c_str(), "w", stdout) == nullptr ||
          std::freopen((dir_ / "registry.log").c_str(), "a", stderr) == nullptr)
        _exit(126);
      execl("/usr/bin/docker-registry", "docker-registry", "serve", (dir_ / "config.yml").c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 100 && !answers(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!answers())
      why_ = "docker-registry did not listen on " + std::string(host) + " within 10 s; see " +
             (dir_ / "registry.log").string();
  }
  ~test_registry() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  test_registry(const test_registry&) = delete;
  test_registry& operator=(const test_registry&) = delete;

  /// Empty when the registry serves; otherwise why not (a reason to skip).
  const std::string& why() const noexcept { return why_; }

 private:
  static bool answers() {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(5000);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    close(s);
    return ok;
  }

  std::filesystem::path dir_;
  std::string why_;
  pid_t pid_ = -1;
};

}  // namespace r2r::plugins::sandbox::docker::testing
