// SPDX-License-Identifier: MIT
// A real container engine for integration tests: starts dockerd (or `podman system service`)
// with every byte of state under a fresh temporary directory and a private unix socket, imports a
// busybox image built from /bin/busybox through the Engine API, and stops the engine by PID.
// Never touches a system-wide engine. THREADING: one per test process.
#pragma once

#include <sys/types.h>
#include <filesystem>
#include <string>

namespace r2r::plugins::sandbox::docker::testing {

class engine_fixture {
 public:
  /// kind: "docker" or "podman". On failure, ok() is false and why() says what is missing.
  /// `plain_http_registry` (podman only): a registry host:port podman may pull from over plain
  /// HTTP (a registries.conf `insecure` entry; dockerd trusts 127.0.0.0/8 by itself).
  explicit engine_fixture(const std::string& kind, const std::string& plain_http_registry = "");
  ~engine_fixture();
  engine_fixture(const engine_fixture&) = delete;
  engine_fixture& operator=(const engine_fixture&) = delete;

  bool ok() const noexcept { return ok_; }
  const std::string& why() const noexcept { return why_; }
  const std::string& socket() const noexcept { return socket_; }
  const std::filesystem::path& dir() const noexcept { return dir_; }
  static constexpr const char* image = "local/busybox";

 private:
  bool start_docker();
  bool start_podman(const std::string& plain_http_registry);
  bool wait_ready();
  bool import_busybox();

  std::filesystem::path dir_;
  std::string socket_;
  pid_t pid_ = -1;
  bool ok_ = false;
  std::string why_;
};

}  // namespace r2r::plugins::sandbox::docker::testing
