// SPDX-License-Identifier: MIT
// r2r.sandbox.docker: sandboxes as containers of a Docker Engine API v1.41 engine (dockerd or
// Podman's compatible service) reached over a unix socket. Each sandbox is one long-lived
// container; commands run as execs. Every engine object it makes carries the label `<label>=1`
// and `<label>.owner=<this instance's token>`; cleanup and destruction touch only those.
// LIFETIME: the destructor removes this instance's containers, checkpoint and built images, and
// its state directory (workspace snapshots, private workspaces). After a crash, cleanup{all:true}
// from a new instance removes what any instance left.
// THREADING: the host serialises calls on an instance; no internal locking.
#pragma once

#include "docker_engine.hpp"
#include "dockerfile.hpp"
#include "network_policy.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/sandbox.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox::docker {

class docker_sandbox {
 public:
  struct config {
    std::string socket = "/var/run/docker.sock";
    std::string api_version = "1.41";
    std::string label = "org.repo2rocm.sandbox";
    std::string default_image;
    std::string sandbox_workspace = "/workspace";
    std::string state_dir;  // empty: a private directory under the system temp directory
    sdk::sandbox::limits default_limits{8LL << 30, 2.0, 4096, 2LL << 30};
    double default_timeout_s = 600;
    std::int64_t max_output_bytes = 1 << 20;
    double api_timeout_s = 120;
    std::string seccomp = "default";
    std::string network = "install";                // default policy: "none" | "install" | "always"
    std::string network_mode = "bridge";            // the engine network a networked exec is attached to
    plugins::sandbox::package_index package_index;  // passed into install execs only
    bool no_pull = false;                           // true: a missing image is an error, as on offline hosts
    std::string pull_progress = "auto";             // "auto": per-layer display on a terminal, else log events
    std::vector<std::string> keepalive_cmd{"/bin/sh", "-c", "while :; do sleep 3600; done"};
  };

  docker_sandbox(const config& cfg, const sdk::host& host);
  ~docker_sandbox();
  docker_sandbox(const docker_sandbox&) = delete;
  docker_sandbox& operator=(const docker_sandbox&) = delete;

  sdk::sandbox::info_response info(const sdk::sandbox::info_request&);
  sdk::sandbox::create_response create(const sdk::sandbox::create_request& request);
  sdk::sandbox::exec_response exec(const sdk::sandbox::exec_request& request, sdk::call_context& ctx);
  sdk::sandbox::checkpoint_response checkpoint(const sdk::sandbox::checkpoint_request& request);
  sdk::sandbox::rollback_response rollback(const sdk::sandbox::rollback_request& request);
  sdk::sandbox::copy_response copy_in(const sdk::sandbox::copy_request& request);
  sdk::sandbox::copy_response copy_out(const sdk::sandbox::copy_request& request);
  sdk::sandbox::removed_response destroy(const sdk::sandbox::destroy_request& request);
  sdk::sandbox::removed_response cleanup(const sdk::sandbox::cleanup_request& request);

  /// Docker-only methods: {"image"} -> {"exists", "id", "size", "labels"}; build_request ->
  /// {"image", "tag", "dockerfile"}.
  nlohmann::json image_inspect(const nlohmann::json& request);
  /// {"image"} -> {"image", "id", "digest", "pulled", "progress"}: pulls the image when the engine
  /// lacks it (unless no_pull), with credentials from the client config; "digest" is
  /// "repo@sha256:…"; "progress" the pull's per-layer event lines in order (empty: no pull), so a
  /// caller without a terminal can show them as its own events.
  nlohmann::json image_pull(const nlohmann::json& request, sdk::call_context& ctx);
  /// build_request -> {"image", "tag", "dockerfile"}: the generated form, or with "context_dir"
  /// the Dockerfile there built as it is (+ "network": the networkmode it had). A context build
  /// with "network" gets the configured network and package index (as build args) unless the
  /// policy is "none"; a failure names the failing step.
  nlohmann::json image_build(const build_request& request);

  static sdk::method_table<docker_sandbox> methods();

  /// This instance's owner token (the value of `<label>.owner` on its objects).
  const std::string& owner() const noexcept { return owner_; }

 private:
  struct checkpoint_record {
    std::string image_id;
    std::filesystem::path snapshot;  // workspace tar
  };
  struct sandbox_record {
    std::string container_id;
    std::string name;
    sdk::sandbox::create_request plan;
    std::string network;  // the policy in force
    std::string image;
    std::filesystem::path workspace;
    bool own_workspace = false;
    std::map<std::string, checkpoint_record> checkpoints;
    long long oom_seen = 0;
  };

  /// Throws sdk::unavailable when the engine socket is absent, before any other check, so a host
  /// without the engine gets the same answer from every method.
  void require_engine() const;
  sandbox_record& find(const std::string& id);
  const std::filesystem::path& state_dir();
  std::map<std::string, std::string> labels(const std::string& extra_key = {}, const std::string& value = {}) const;
  /// Creates and starts a container for `record` from `image`; returns its id.
  std::string start_container(const std::string& sandbox_id, const sandbox_record& record, const std::string& image);
  long long oom_kill_count(const std::string& container) const;
  /// The image's inspect data, pulling it first when it is missing (sdk::failed under no_pull).
  /// `pulled` says whether a pull happened; `events` (when given) receives the pull's event lines.
  nlohmann::json ensure_image(const std::string& image, const std::function<bool()>& should_stop, bool& pulled,
                              std::vector<std::string>* events = nullptr);
  /// Runs `spec` attached to the configured network and detaches afterwards, whatever happens
  /// (exit, timeout, cancellation, an engine error). Processes left running by earlier execs are
  /// killed first, so nothing but this exec shares the window. A detach that fails removes the
  /// container: a sandbox never stays attached.
  exec_outcome exec_with_network(sandbox_record& record, const std::string& sandbox_id, const exec_spec& spec);
  void remove_sandbox(const std::string& id, sandbox_record& record, std::vector<std::string>& removed);
  nlohmann::json build_context(const build_request& request, const std::map<std::string, std::string>& labels);

  config cfg_;
  sdk::host host_;
  docker_engine engine_;
  std::string owner_;
  std::filesystem::path state_dir_;  // created on first use
  std::map<std::string, sandbox_record> sandboxes_;
  std::vector<std::string> built_images_;
  bool build_started_ = false;  // an image_build reached the engine: a failed one may leave labelled images
  unsigned next_id_ = 1;
};

void from_json(const nlohmann::json& j, docker_sandbox::config& c);

}  // namespace r2r::plugins::sandbox::docker
