// SPDX-License-Identifier: MIT
// Typed Engine API v1.41 operations over unix_http: the only file that knows endpoint paths and
// response shapes. Works against dockerd and Podman's Docker-compatible service. Errors: HTTP
// failures become sdk::failed with the engine's own message; an absent socket is sdk::unavailable.
// THREADING: const methods may run concurrently (one curl handle per call).
#pragma once

#include "capped_output.hpp"
#include "unix_http.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox::docker {

struct exec_spec {
  std::vector<std::string> cmd;
  std::vector<std::string> env;  // "K=V"
  std::string workdir;
  std::chrono::milliseconds timeout{0};  // 0: none
  std::size_t max_output_bytes = 1 << 20;
  std::function<bool()> cancelled;  // polled; true stops the command like a timeout
};

struct exec_outcome {
  int exit_code = -1;
  plugins::sandbox::capped_output out{2};
  plugins::sandbox::capped_output err{2};
  bool timed_out = false;
  bool cancelled = false;
  std::chrono::milliseconds duration{0};
};

class docker_engine {
 public:
  docker_engine(std::string socket, std::string api_version, std::chrono::milliseconds timeout);

  /// GET /_ping; throws unavailable when the engine does not answer.
  void ping() const;
  /// GET /version (Version, ApiVersion, Components[].Name tell dockerd and Podman apart).
  nlohmann::json version() const;

  std::optional<nlohmann::json> inspect_image(const std::string& name) const;
  /// POST /images/create?fromImage=…&tag=…: pulls `ref` from its registry. `auth` is the
  /// X-Registry-Auth value ("" for anonymous). Every progress message goes to `on_message`;
  /// `should_stop` (polled) aborts the transfer. Throws sdk::failed with the engine's error.
  void pull_image(const std::string& ref, const std::string& auth,
                  const std::function<void(const nlohmann::json&)>& on_message,
                  const std::function<bool()>& should_stop) const;
  struct build_options {
    std::string network = "none";                   // networkmode: "none" or the network installs use
    std::map<std::string, std::string> build_args;  // buildargs
    bool nocache = false;
  };
  /// POST /build with a tar context (Dockerfile at its root). Returns the image id. By default the
  /// build runs with no network; intermediate containers are always removed. A failed build
  /// throws sdk::failed naming the failing step ("Step 7/9 : RUN …") and the engine's error.
  std::string build_image(const std::filesystem::path& context_tar, const std::string& tag,
                          const std::map<std::string, std::string>& labels, const build_options& options) const;
  std::string build_image(const std::filesystem::path& context_tar, const std::string& tag,
                          const std::map<std::string, std::string>& labels) const {
    return build_image(context_tar, tag, labels, build_options{});
  }
  /// POST /commit; the image gets `labels` and the tag repo:tag. Returns the image id.
  std::string commit(const std::string& container, const std::string& repo, const std::string& tag,
                     const std::map<std::string, std::string>& labels) const;
  void remove_image(const std::string& image) const;
  /// Image ids carrying label key=value (every value when value is empty).
  std::vector<std::string> images_with_label(const std::string& key, const std::string& value) const;

  /// POST /containers/create; returns the container id.
  std::string create_container(const nlohmann::json& body, const std::string& name) const;
  void start_container(const std::string& id) const;
  nlohmann::json inspect_container(const std::string& id) const;
  /// DELETE /containers/{id}?force=1&v=1; a container already gone (or an empty id) is not an error.
  void remove_container(const std::string& id) const;
  std::vector<std::string> containers_with_label(const std::string& key, const std::string& value) const;

  /// POST /networks/{network}/connect: attaches the container to the engine network.
  void connect_network(const std::string& network, const std::string& container) const;
  /// POST /networks/{network}/disconnect (forced); a container not attached to it is not an error.
  void disconnect_network(const std::string& network, const std::string& container) const;
  /// Names of the networks the container is attached to (NetworkSettings.Networks), "none" excluded.
  std::vector<std::string> container_networks(const std::string& container) const;

  /// Runs spec.cmd in the container; streams output into capped buffers. spec.cmd must print
  /// "r2r-pid:<pid>\n" on stderr first (exec_wrapper() does): on timeout that process group is
  /// killed from inside the container, so the command really stops.
  exec_outcome exec(const std::string& container, const exec_spec& spec) const;
  /// A short helper exec (kill, cat); returns exit code and stdout. Never times out silently.
  std::pair<int, std::string> exec_simple(const std::string& container, const std::vector<std::string>& cmd) const;

  /// PUT /containers/{id}/archive?path=…; the tar is streamed from a file.
  void put_archive(const std::string& container, const std::string& path, const std::filesystem::path& tar) const;
  /// GET /containers/{id}/archive?path=…; the tar is streamed to a file. Returns its size.
  std::uintmax_t get_archive(const std::string& container, const std::string& path,
                             const std::filesystem::path& tar) const;

  const std::string& socket() const noexcept { return http_.socket_path(); }

 private:
  unix_http http_;
};

/// The command docker_engine::exec expects: reports the pid, then execs /bin/sh -c command.
std::vector<std::string> exec_wrapper(const std::string& command);

}  // namespace r2r::plugins::sandbox::docker
