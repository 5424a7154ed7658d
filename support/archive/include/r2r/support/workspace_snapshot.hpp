// SPDX-License-Identifier: MIT
// Checkpoints of a host workspace directory as tar files: take() archives its contents, restore()
// empties the directory and extracts the archive back, so files added after the checkpoint are
// gone and deleted or changed files come back.
#pragma once

#include <filesystem>

namespace r2r::tarball {

void take_snapshot(const std::filesystem::path& workspace, const std::filesystem::path& tar_file);
void restore_snapshot(const std::filesystem::path& tar_file, const std::filesystem::path& workspace);

}  // namespace r2r::tarball
