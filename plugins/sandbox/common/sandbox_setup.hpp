// SPDX-License-Identifier: MIT
// Steps every sandbox plugin takes when it creates a sandbox, whatever the engine.
#pragma once

#include <r2r/sdk/kinds/sandbox.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox {

struct prepared_workspace {
  std::filesystem::path path;  // absolute, canonical
  bool owned = false;          // created here; the plugin removes it with the sandbox
};

/// The requested workspace (must be an existing directory; sdk::invalid_argument otherwise), or,
/// when none was requested, a new directory `workspace-<id>` under state_dir owned by the sandbox.
prepared_workspace prepare_workspace(const std::string& requested, const std::filesystem::path& state_dir,
                                     const std::string& id);

/// Checks the request's read-only mounts (sdk::sandbox::ro_mount's rules) and returns them with
/// each source made canonical. Throws sdk::invalid_argument naming the mount and what is wrong.
std::vector<sdk::sandbox::ro_mount> check_mounts(const std::vector<sdk::sandbox::ro_mount>& mounts,
                                                 const std::string& sandbox_workspace);

/// Throws sdk::unavailable naming the first device of `gpu` (/dev/kfd, the render node) not on this host.
void require_gpu_devices(const sdk::sandbox::gpu& gpu);

}  // namespace r2r::plugins::sandbox
