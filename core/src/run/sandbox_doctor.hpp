// SPDX-License-Identifier: MIT
// What `repo2rocm sandbox doctor` reports: which sandbox engines answer here (through the sandbox
// plugins' own `info`: Docker on DOCKER_HOST, Podman on CONTAINER_HOST, else the standard sockets;
// bubblewrap), the AMD GPUs found (R2R_SYSROOT replaces "/" for tests) and what a run on this host
// can and cannot verify. Read-only: it pings engines and reads sysfs; it creates no container.
#pragma once

#include <r2r/core/plugin_registry.hpp>

#include <nlohmann/json.hpp>

namespace r2r::run {

/// {engines: [{name, plugin, endpoint, answered, engine, version, api_version | problem}], gpus,
/// kfd_present, gpu_summary, any_engine, can, cannot}.
nlohmann::json sandbox_doctor(const core::plugin_registry& registry);

}  // namespace r2r::run
