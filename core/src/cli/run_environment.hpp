// SPDX-License-Identifier: MIT
// The environment stage of `repo2rocm run`: chooses the sandbox and builds the plan's image in it.
//
// Sandbox: the pipeline's `sandbox` stage when it has one; otherwise r2r.sandbox.docker on the
// engine socket of DOCKER_HOST (else /var/run/docker.sock), then CONTAINER_HOST (Podman), when
// its `info` answers; otherwise r2r.sandbox.local (bubblewrap). Image (container engines): the
// plan's base image, which must already be in the engine's store (nothing is pulled), with the
// plan's environment and plan.json under /opt/r2r, built through the plugin's image_build. The
// plan's install steps are not baked in: the execute stage runs them as actions, under the guards
// (mode 0 runs the README's own install commands instead). The local sandbox runs host binaries;
// no image is built and the stage says so.
// The built image lives as long as the sandbox instance (the run), so the stage is not resumable.
#pragma once

#include "run_context.hpp"

namespace r2r::cli::run {

stage_step environment_step();

/// The sandbox create request of this run: the built image, the workspace, no network, limits,
/// the pinned GPU when there is one, and the plan's environment.
nlohmann::json sandbox_create_request(const run_context& ctx);

}  // namespace r2r::cli::run
