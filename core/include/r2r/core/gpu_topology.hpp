// SPDX-License-Identifier: MIT
// AMD GPU discovery from the KFD topology in sysfs, and pinning of one GPU for a sandbox.
// Each /sys/class/kfd/kfd/topology/nodes/<N>/properties is "key value" lines; GPU nodes have a
// non-zero gfx_target_version (major*10000 + minor*100 + stepping, e.g. 90402 -> gfx942,
// 90010 -> gfx90a) and drm_render_minor (N of /dev/dri/renderD<N>); CPU nodes have 0.
// THREADING: pure functions over the file system; safe from any thread.
#pragma once

#include <r2r/core/error.hpp>

#include <tl/expected.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace r2r::core {

struct amd_gpu {
  int index = 0;  // position among GPU nodes in node order: the HIP/ROCR device index on the host
  int node = 0;   // KFD topology node number
  std::uint32_t gfx_target_version = 0;
  std::string gfx;  // e.g. "gfx942"
  int render_minor = -1;
  std::string render_node;  // /dev/dri/renderD<minor>
  std::string name;         // the node's name file (e.g. "gfx942"), may be empty
};

struct gpu_discovery {
  bool kfd_present = false;  // /dev/kfd exists
  bool topology_present = false;
  std::vector<amd_gpu> gpus;
  /// One line for people: what was found, or plainly why there is no AMD GPU here.
  std::string summary() const;
};

/// "gfx" + major + minor + stepping in hex; "" for 0 (a CPU node).
std::string gfx_name(std::uint32_t gfx_target_version);

/// Reads `<root>/dev/kfd` and `<root>/sys/class/kfd/kfd/topology/nodes`; root is "/" on a host and
/// a temporary directory in tests.
gpu_discovery discover_amd_gpus(const std::filesystem::path& root = "/");

/// What a sandbox needs to be pinned to one GPU.
struct gpu_pin {
  amd_gpu gpu;
  std::string kfd = "/dev/kfd";
  std::map<std::string, std::string> env;  // HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES
  /// The sandbox plan's "gpu" object (plugin_api/schemas/sandbox/create.request.schema.json).
  std::map<std::string, std::string> describe() const;
};

/// Pins GPU `index`. Inside a sandbox that is given only this GPU's render node, the GPU is device
/// 0, so the visible-devices variables are "0". Errors (phase run): no AMD GPU, index out of range.
tl::expected<gpu_pin, error> pin_gpu(const gpu_discovery& found, int index);

}  // namespace r2r::core
