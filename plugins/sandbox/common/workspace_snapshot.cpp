// SPDX-License-Identifier: MIT
#include "workspace_snapshot.hpp"

#include "tar_archive.hpp"

#include <stdexcept>

namespace r2r::sandbox_common {
namespace fs = std::filesystem;

void take_snapshot(const fs::path& workspace, const fs::path& tar_file) {
  write_tar(workspace, tar_file, "");
}

void restore_snapshot(const fs::path& tar_file, const fs::path& workspace) {
  if (!fs::exists(tar_file)) throw std::runtime_error("checkpoint archive missing: " + tar_file.string());
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(workspace)) {
    fs::remove_all(entry.path(), ec);
    if (ec) throw std::runtime_error("cannot clear " + entry.path().string() + ": " + ec.message());
  }
  extract_tar(tar_file, workspace);
}

}  // namespace r2r::sandbox_common
