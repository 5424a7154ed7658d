// SPDX-License-Identifier: MIT
// Package-manager commands seen by r2r.guard.accelerator-swap: which installer a simple command
// runs (pip, python -m pip, uv pip/add, conda, mamba, micromamba, poetry, pdm, pipx) and the
// index settings of their config commands (pip config set, poetry source add, conda config --add channels), with which
// packages, indexes and channels, and which package specs or indexes are CUDA builds that cannot run on ROCm.
#pragma once

#include <r2r/support/shell.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::guard::accel {

struct package_operation {
  std::string manager;                // "pip", "uv", "conda", "poetry", "pdm", "pipx" or "apt"
  bool removes = false;               // uninstall / remove
  bool configures = false;            // a config command that sets indexes or channels (no packages)
  std::vector<std::string> packages;  // specs as written (name, name==1.0, URL, conda channel::name)
  std::vector<std::string> indexes;   // index or find-links URLs, from flags and PIP_/UV_ variables
  std::vector<std::string> channels;  // conda channels
};

/// The package operation a simple command performs; nullopt when it is not an install or removal.
std::optional<package_operation> parse_package_command(const shell::simple_command& cmd);

/// The normalised distribution name of a spec: lower case, `_`/`.` as `-`, without extras,
/// version, marker, URL path or conda channel ("Flash_Attn[x]==2.5" -> "flash-attn").
std::string normalize_name(std::string_view spec);

/// Why a spec is a CUDA-only build (nvidia-*, *-cu11/12, cupy-cuda*, +cuXXX, pytorch-cuda, ...); empty if not.
std::string cuda_build_reason(std::string_view spec);

/// The ROCm major.minor of a ROCm build: an index download.pytorch.org/whl/rocmX.Y[.Z] or
/// repo.radeon.com/rocm/manylinux/rocm-rel-X.Y[.Z], or a spec's +rocmX.Y local version; empty if
/// it is none.
std::string rocm_version_of(std::string_view spec_or_index);

/// The ROCm major.minor the run targets: from the plan's base image (`base_image.ref`, `tag`,
/// `image`) or else from `image` (the sandbox's image), e.g. "rocm/pytorch:rocm6.1_ubuntu22.04" -> "6.1".
std::string target_rocm_version(const nlohmann::json& plan, const std::string& image);

/// True for a CUDA wheel index (download.pytorch.org/whl/cuXXX, pypi.nvidia.com, pypi.ngc.nvidia.com).
bool is_cuda_index(std::string_view url);

}  // namespace r2r::plugins::guard::accel
