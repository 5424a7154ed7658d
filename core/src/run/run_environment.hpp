// SPDX-License-Identifier: MIT
// The environment stage of `repo2rocm run`: chooses the sandbox, builds the plan's image in it and
// fetches the plan's assets (run_assets.hpp).
//
// Sandbox: the pipeline's `sandbox` stages are alternatives in file order; the first whose `info`
// answers is the run's sandbox (configs/pipelines/run.json: r2r.sandbox.docker, whose socket
// defaults to DOCKER_HOST, then r2r.sandbox.local). It becomes the session's service "sandbox", so
// the executor and the verifiers use that one instance. Image (container engines): the
// plan's base image, which must already be in the engine's store (nothing is pulled), with the
// plan's environment and plan.json under /opt/r2r, built through the plugin's image_build. The
// plan's install steps are not baked in: the execute stage runs them as actions, under the guards
// (mode 0 runs the README's own install commands instead). The local sandbox runs host binaries;
// no image is built and the stage says so.
// The built image lives as long as the sandbox instance (the run), so the stage is not resumable.
#pragma once

#include "run_context.hpp"

namespace r2r::run {

stage_step environment_step();

/// The sandbox create request of this run: the built image, the workspace, limits, the pinned GPU
/// when there is one, the plan's environment, and the asset cache read-only with the hub offline.
nlohmann::json sandbox_create_request(const run_context& ctx);

}  // namespace r2r::run
