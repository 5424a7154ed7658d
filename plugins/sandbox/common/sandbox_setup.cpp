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

namespace {

/// `inner` is `outer` or lies beneath it (both absolute and lexically normal).
bool within(const std::string& inner, const std::string& outer) {
  if (outer == "/") return true;
  return inner == outer ||
         (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/');
}

}  // namespace

std::vector<sdk::sandbox::ro_mount> check_mounts(const std::vector<sdk::sandbox::ro_mount>& mounts,
                                                 const std::string& sandbox_workspace) {
  std::vector<sdk::sandbox::ro_mount> out;
  for (const auto& m : mounts) {
    const std::string what = "mount '" + m.source + "' -> '" + m.target + "': ";
    for (const auto* path : {&m.source, &m.target}) {
      if (path->empty() || path->front() != '/') throw sdk::invalid_argument(what + "both paths must be absolute");
      if (path->find_first_of(":,\n") != std::string::npos)
        throw sdk::invalid_argument(what + "a path holds ':', ',' or a newline, which a bind cannot carry");
      for (const auto& part : fs::path(*path))
        if (part == "..") throw sdk::invalid_argument(what + "a path holds '..'; give it without");
    }
    const std::string target = fs::path(m.target).lexically_normal().string();
    const std::string workspace = fs::path(sandbox_workspace).lexically_normal().string();
    if (target == "/" || within(target, workspace) || within(workspace, target))
      throw sdk::invalid_argument(what + "the target must not be '/', the workspace (" + sandbox_workspace +
                                  ") or a path beneath or above it; mount it elsewhere, e.g. /opt/r2r-assets");
    std::error_code ec;
    const auto source = fs::canonical(m.source, ec);
    if (ec || !fs::is_directory(source))
      throw sdk::invalid_argument(what + "the source is not an existing directory on the host");
    out.push_back({source.string(), target});
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
