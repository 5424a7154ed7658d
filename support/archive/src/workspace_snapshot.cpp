// SPDX-License-Identifier: MIT
#include <r2r/support/workspace_snapshot.hpp>

#include <r2r/support/tar_archive.hpp>

#include <r2r/support/safe_fs.hpp>

#include <stdexcept>

namespace r2r::tarball {
namespace fs = std::filesystem;

void take_snapshot(const fs::path& workspace, const fs::path& tar_file) {
  write_tar(workspace, tar_file, "");
}

void restore_snapshot(const fs::path& tar_file, const fs::path& workspace) {
  if (!fs::exists(tar_file)) throw std::runtime_error("checkpoint archive missing: " + tar_file.string());
  try {
    safe_fs::remove_tree(safe_fs::root::open(workspace, "workspace"), "");  // links removed, never followed
  } catch (const safe_fs::error& e) {
    throw std::runtime_error("cannot clear the workspace " + workspace.string() + ": " + e.what());
  }
  extract_tar(tar_file, workspace, "workspace");
}

}  // namespace r2r::tarball
