// SPDX-License-Identifier: MIT
// The AMD GPUs of the KFD topology (<root>/sys/class/kfd/kfd/topology/nodes/<N>/properties), read the
// way core's gpu_topology does (a plugin never includes core's headers): GPU nodes are those with a
// non-zero gfx_target_version, indexed in node order (the index `repo2rocm run --gpu` takes), each
// with the render node /dev/dri/renderD<drm_render_minor>. THREADING: a pure function.
#pragma once

#include <string>
#include <vector>

namespace r2r::plugins::scheduler {

struct gpu_node {
  int index = 0;
  int node = 0;
  std::string render_node;
};

std::vector<gpu_node> list_gpu_nodes(const std::string& root);

}  // namespace r2r::plugins::scheduler
