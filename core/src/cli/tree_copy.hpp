// SPDX-License-Identifier: MIT
// Copying a project tree without its `.git` directories (port's working copy, run's workspace).
#pragma once

#include <r2r/core/error.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace r2r::cli {

struct copied_tree {
  std::vector<std::string> files;  // regular files, relative generic paths, sorted
  std::size_t symlinks = 0;        // symbolic links copied as links
};

/// Copies `source` into `dest` (created; existing files are overwritten), skipping every `.git`
/// directory. Errors (phase io) name the file that could not be copied.
core::result<copied_tree> copy_tree(const std::filesystem::path& source, const std::filesystem::path& dest);

}  // namespace r2r::cli
