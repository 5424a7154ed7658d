// SPDX-License-Identifier: MIT
#include "package_index_world.hpp"

#include "docker_engine.hpp"
#include "unix_http.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace r2r::plugins::sandbox::docker::testing {
namespace fs = std::filesystem;
namespace {

unix_http http_of(const engine_fixture& e) {
  return unix_http(e.socket(), "/v1.41", std::chrono::seconds(120));
}

}  // namespace

package_index_world::package_index_world(const std::string& kind, const fs::path& rootfs,
                                         const fs::path& index_script) {
  if (!fs::exists(rootfs / ".r2r-test-image")) {
    why_ = "no finished test rootfs at " + rootfs.string() +
           " (ctest builds it through the fixture pip_rootfs_setup; by hand: scripts/test-images/debian-pip.sh " +
           rootfs.string() + ")";
    return;
  }
  engine_ = std::make_unique<engine_fixture>(kind);
  if (!engine_->ok()) {
    why_ = engine_->why();
    return;
  }
  const fs::path index_dir = engine_->dir() / "index";
  const std::string make = "/usr/bin/python3 " + index_script.string() + " " + index_dir.string();
  if (std::system(make.c_str()) != 0) {
    why_ = "writing the package index failed: " + make;
    return;
  }
  ok_ = import_rootfs(rootfs) && start_server(index_dir);
}

bool package_index_world::import_rootfs(const fs::path& rootfs) {
  const fs::path tar = engine_->dir() / "debian-pip.tar";
  if (std::system(("tar -C " + rootfs.string() + " --exclude=./.r2r-test-image -cf " + tar.string() + " .").c_str()) !=
      0) {
    return why_ = "tar of " + rootfs.string() + " failed", false;
  }
  unix_http::stream_options o;
  o.upload_file = tar;
  o.content_type = "application/x-tar";
  o.sink = [](std::string_view) {};
  const auto r =
      http_of(*engine_).stream("POST",
                               "/images/create?fromSrc=-&repo=local%2Fdebian-pip&tag=latest&changes=" +
                                   url_encode("ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
                               o);
  fs::remove(tar);
  if (r.status != 200) return why_ = "import of the debian-pip image failed: HTTP " + std::to_string(r.status), false;
  return true;
}

bool package_index_world::start_server(const fs::path& index_dir) {
  const auto http = http_of(*engine_);
  // Internal: the engine gives it no route out, so the index is reachable only from its members.
  const nlohmann::json net{{"Name", network}, {"Driver", "bridge"}, {"Internal", true}, {"CheckDuplicate", true}};
  const auto made = http.request("POST", "/networks/create", net.dump());
  if (made.status != 201 && made.status != 200) {
    return why_ = "creating the internal network failed: HTTP " + std::to_string(made.status) + " " + made.body, false;
  }
  network_made_ = true;
  docker_engine engine(engine_->socket(), "1.41", std::chrono::seconds(120));
  const nlohmann::json body{{"Image", image},
                            {"Cmd", {"python3", "-m", "http.server", "8080", "--directory", "/srv"}},
                            {"HostConfig", {{"NetworkMode", network}, {"Binds", {index_dir.string() + ":/srv:ro"}}}}};
  try {
    server_id_ = engine.create_container(body, "r2r-test-index-server");
    engine.start_container(server_id_);
    const auto info = engine.inspect_container(server_id_);
    const std::string ip = info["NetworkSettings"]["Networks"][network].value("IPAddress", std::string());
    if (ip.empty()) return why_ = "the index server has no address on " + std::string(network), false;
    index_url_ = "http://" + ip + ":8080/simple";
    for (int i = 0; i < 100; ++i) {
      const auto [code, out] = engine.exec_simple(
          server_id_,
          {"python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/simple/')"});
      if (code == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  } catch (const std::exception& e) {
    return why_ = std::string("the index server did not start: ") + e.what(), false;
  }
  return why_ = "the index server did not answer within 10 s", false;
}

package_index_world::~package_index_world() {
  if (engine_ && engine_->ok()) {
    try {
      docker_engine engine(engine_->socket(), "1.41", std::chrono::seconds(60));
      engine.remove_container(server_id_);
      if (network_made_) (void)http_of(*engine_).request("DELETE", "/networks/" + std::string(network));
    } catch (...) {  // the engine is stopped next, with everything it holds
    }
  }
  engine_.reset();
}

}  // namespace r2r::plugins::sandbox::docker::testing
