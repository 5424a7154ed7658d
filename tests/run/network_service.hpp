// SPDX-License-Identifier: MIT
// A server container on an *internal* network of a private dockerd (private_dockerd.hpp), for the
// run tests whose sandbox installs or fetches from a local service with no route out: the engine,
// the Debian + python3-pip test image imported from its rootfs (never pulled), the network, and
// the server on it, named, which the host and the network's containers reach at its address. The
// constructor stops at the first step that fails and says why (a reason to skip); the destructor
// removes the container and the network before the engine stops, because dockerd leaves a user
// network's bridge on the host when it stops, and leaked bridges use up the address pools the
// next engine allocates from.
// OWNERSHIP: owns the engine (and so the container and network). THREADING: one test thread.
#pragma once

#include "private_dockerd.hpp"
#include "run_fixture.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

namespace r2r::test {

/// The Debian + python3-pip test rootfs (scripts/test-images/debian-pip.sh); R2R_TEST_IMAGE_ROOTFS
/// overrides where it is.
inline std::filesystem::path debian_pip_rootfs() {
  if (const char* e = std::getenv("R2R_TEST_IMAGE_ROOTFS"); e != nullptr && *e != '\0') return e;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr && *home != '\0' ? home : "/root") /
         ".local/state/repo2rocm/test-images/debian-pip";
}

struct service_options {
  std::filesystem::path dir;               // the engine's directory (created)
  std::string image = "local/debian-pip";  // the tag the test rootfs is imported as
  std::string network;                     // created with --internal
  std::string name;                        // the server container's name
  std::string run_args;                    // more `docker run` arguments (volumes)
  std::string command;                     // the server's command line in the image
  int port = 8080;                         // where it listens
  std::string ready_path = "/";            // a GET of this path from the host succeeds once it serves
};

class network_service {
 public:
  explicit network_service(service_options o) : o_(std::move(o)) {
    if (why_ = private_dockerd_blocker(); !why_.empty()) return;
    if (!std::filesystem::exists(debian_pip_rootfs() / ".r2r-test-image")) {
      why_ = "no test rootfs at " + debian_pip_rootfs().string() + " (scripts/test-images/debian-pip.sh builds it)";
      return;
    }
    dockerd_ = std::make_unique<private_dockerd>(o_.dir);
    if (!dockerd_->ready()) {
      why_ = "dockerd could not start here:\n" + dockerd_->log();
      return;
    }
    const auto imported = run_process("tar -C '" + debian_pip_rootfs().string() +
                                      "' --exclude=./.r2r-test-image -c . | DOCKER_HOST='unix://" + dockerd_->socket() +
                                      "' docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
                                      "/sbin:/bin' - " +
                                      o_.image);
    if (imported.exit_code != 0) {
      why_ = "importing the test image failed: " + imported.err;
      return;
    }
    // Internal: no route out of the engine's namespaces; only its members (and the host) reach it.
    if (const auto net = dockerd_->docker("network create --internal " + o_.network); net.exit_code != 0) {
      why_ = "docker network create " + o_.network + " failed: " + net.err;
      return;
    }
    network_made_ = true;
    const auto server = dockerd_->docker("run -d --name " + o_.name + " --network " + o_.network + " " + o_.run_args +
                                         " " + o_.image + " " + o_.command);
    if (server.exit_code != 0) {
      why_ = "the server container " + o_.name + " did not start: " + server.err;
      return;
    }
    ip_ = dockerd_
              ->docker("inspect -f '{{(index .NetworkSettings.Networks \"" + o_.network + "\").IPAddress}}' " + o_.name)
              .out;
    while (!ip_.empty() && (ip_.back() == '\n' || ip_.back() == '\r')) ip_.pop_back();
    bool up = false;
    for (int i = 0; i < 100 && !up && !ip_.empty(); ++i) {
      up = run_process("curl -sf -o /dev/null '" + url() + o_.ready_path + "'").exit_code == 0;
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!up) why_ = "the server " + o_.name + " did not answer at " + url() + o_.ready_path + ": " + logs();
  }
  ~network_service() {
    if (!dockerd_ || !dockerd_->ready() || !network_made_) return;
    (void)dockerd_->docker("rm -f " + o_.name);
    (void)dockerd_->docker("network rm " + o_.network);
  }
  network_service(const network_service&) = delete;
  network_service& operator=(const network_service&) = delete;

  /// Empty when the server answers; otherwise why not (a reason to skip).
  const std::string& why() const { return why_; }
  const private_dockerd& dockerd() const { return *dockerd_; }
  const std::string& network() const { return o_.network; }
  const std::string& image() const { return o_.image; }
  /// The server's base URL by address, as the host reaches it: "http://IP:PORT".
  std::string url() const { return "http://" + ip_ + ":" + std::to_string(o_.port); }
  /// What the server wrote on stderr so far.
  std::string logs() const { return dockerd_->docker("logs " + o_.name).err; }

 private:
  service_options o_;
  std::string why_;
  std::unique_ptr<private_dockerd> dockerd_;
  bool network_made_ = false;
  std::string ip_;
};

}  // namespace r2r::test
