// SPDX-License-Identifier: MIT
#include "sandbox_setup.hpp"

#include <r2r/sdk/error.hpp>

namespace r2r::plugins::sandbox {

namespace fs = std::filesystem;

prepared_workspace prepare_workspace(const std::string& requested, const fs::path& state_dir, const std::string& id) {
  prepared_workspace out;
  if (requested.empty()) {
    out.path = state_dir / ("workspace-" + id);
    fs::create_directories(out.path);
    out.owned = true;
    return out;
  }
  std::error_code ec;
  out.path = fs::canonical(requested, ec);
  if (ec || !fs::is_directory(out.path)) {
    throw sdk::invalid_argument("workspace '" + requested + "' is not an existing directory");
  }
  return out;
}

void require_gpu_devices(const sdk::sandbox::gpu& gpu) {
  const std::string render =
      gpu.host_render.empty() ? "/dev/dri/renderD" + std::to_string(gpu.render_minor) : gpu.host_render;
  for (const std::string& dev : {gpu.host_kfd, render}) {
    if (!fs::exists(dev)) throw sdk::unavailable("GPU device " + dev + " is not on this host");
  }
}

}  // namespace r2r::plugins::sandbox
