// SPDX-License-Identifier: MIT
// Turns a sandbox plan (create request plus the plugin's defaults) into the body of
// POST /containers/create. Pure function, unit-tested without an engine. What it guarantees:
// never privileged; the workspace is the only writable bind mount (the plan's `mounts`, checked at
// create, are bound read-only); network "none" under the "none" policy,
// else the configured network (under "install" the caller detaches it before the container starts
// and attaches it for install execs only);
// memory (no extra swap), CPU and PID limits always set; a GPU is passed as /dev/kfd plus that
// GPU's render node only, with the video/render groups and HIP_/ROCR_VISIBLE_DEVICES.
#pragma once

#include <r2r/sdk/kinds/sandbox.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox::docker {

struct spec_inputs {
  std::string image;
  std::string host_workspace;  // absolute host path, bind-mounted read-write
  std::string sandbox_workspace = "/workspace";
  sdk::sandbox::limits limits;  // resolved: every field > 0
  std::vector<std::string> keepalive_cmd;
  std::map<std::string, std::string> labels;
  std::vector<std::string> gpu_groups;              // numeric gids of video and render on the host
  std::string network_policy = "none";              // resolved: "none", "install" or "always"
  std::string network_mode_when_needed = "bridge";  // the engine network of networked execs
  std::string default_seccomp = "default";
  std::int64_t open_files = 4096;  // nofile ulimit; must not exceed the engine's own hard limit
  std::int64_t processes = 32768;  // nproc ulimit; same constraint (Podman sets its own otherwise)
};

/// The environment set inside for a plan (its env plus GPU pinning variables).
std::map<std::string, std::string> sandbox_env(const sdk::sandbox::create_request& plan);

/// Throws sdk::invalid_argument for an unknown seccomp or ipc value.
nlohmann::json container_spec(const sdk::sandbox::create_request& plan, const spec_inputs& in);

}  // namespace r2r::plugins::sandbox::docker
