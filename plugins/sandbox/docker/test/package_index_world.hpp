// SPDX-License-Identifier: MIT
// A package index the sandbox network tests can reach only through an engine network: a private
// engine (engine_fixture), the Debian image with python3-pip imported from the rootfs that
// scripts/test-images/debian-pip.sh builds, an *internal* network the world creates (no route out
// of the engine's namespaces), and a container on it serving the PEP 503 index of two wheels that
// make_package_index.py writes (`python3 -m http.server`). Never touches a system-wide engine.
// LIFETIME: the destructor removes the server container and the network, then stops the engine.
#pragma once

#include "engine_fixture.hpp"

#include <filesystem>
#include <memory>
#include <string>

namespace r2r::plugins::sandbox::docker::testing {

class package_index_world {
 public:
  static constexpr const char* image = "local/debian-pip";
  static constexpr const char* network = "r2r-test-index";

  /// kind: "docker" or "podman"; rootfs: the debian-pip rootfs directory; index_script: the path
  /// of make_package_index.py. On failure ok() is false and why() says what is missing.
  package_index_world(const std::string& kind, const std::filesystem::path& rootfs,
                      const std::filesystem::path& index_script);
  ~package_index_world();
  package_index_world(const package_index_world&) = delete;
  package_index_world& operator=(const package_index_world&) = delete;

  bool ok() const noexcept { return ok_; }
  const std::string& why() const noexcept { return why_; }
  const engine_fixture& engine() const noexcept { return *engine_; }
  /// "http://<server ip>:8080/simple" on the internal network.
  const std::string& index_url() const noexcept { return index_url_; }
  /// "http://<server ip>:8080/simple/" as a probe target (any HTTP answer means "reached").
  std::string probe_url() const { return index_url_ + "/"; }

 private:
  bool import_rootfs(const std::filesystem::path& rootfs);
  bool start_server(const std::filesystem::path& index_dir);

  std::unique_ptr<engine_fixture> engine_;
  std::string server_id_;
  bool network_made_ = false;
  std::string index_url_;
  bool ok_ = false;
  std::string why_;
};

}  // namespace r2r::plugins::sandbox::docker::testing
