// SPDX-License-Identifier: MIT
// A minimal POSIX ustar writer (PAX records for long paths) used to export the repository at the
// pinned commit as the Dockerfile's build context (`ADD repo.tar` extracts it). One sequential
// file instead of thousands of small ones: fast, and replaced atomically. Entries are written in
// sorted order with mtime 0 and fixed ownership, so the archive is reproducible.
#pragma once

#include <r2r/core/error.hpp>

#include <filesystem>

namespace r2r::cli {

/// Writes every file, directory and symlink under `dir` except `.git` entries to `archive`.
core::result<void> write_tree_tar(const std::filesystem::path& dir, const std::filesystem::path& archive);

}  // namespace r2r::cli
