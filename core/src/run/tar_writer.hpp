// SPDX-License-Identifier: MIT
// A minimal POSIX ustar writer (PAX records for long paths) used to export the repository at the
// pinned commit as the Dockerfile's build context (`ADD repo.tar` extracts it). One sequential
// file instead of thousands of small ones: fast, and replaced atomically. Entries are written in
// sorted order with mtime 0 and fixed ownership, so the archive is reproducible.
#pragma once

#include <r2r/core/error.hpp>

#include <filesystem>

namespace r2r::run {

/// Writes every directory, regular file and symlink under `dir` to `archive` under the rules of
/// planning/tree_policy.hpp: links stored as links (their text, never followed), `.git` entries,
/// FIFOs, sockets, devices, files over the size limit and directories past the depth limit left
/// out (the fingerprint lists them). Nothing outside `dir` is opened. Written to `archive.tmp`,
/// fsynced and renamed over `archive`.
core::result<void> write_tree_tar(const std::filesystem::path& dir, const std::filesystem::path& archive);

}  // namespace r2r::run
