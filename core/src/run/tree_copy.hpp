// SPDX-License-Identifier: MIT
// Copying a project tree (port's working copy, run's source and workspace) under the rules of
// planning/tree_policy.hpp: nothing outside the source is read and nothing outside the destination
// is written (safe_fs), links are recreated as links with the same text and never followed,
// `.git` entries, FIFOs, sockets, devices, files over the size limit and directories deeper than
// the depth limit are left out, and every such decision is noted.
#pragma once

#include <r2r/core/error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace r2r::run {

struct tree_note {
  std::string path;  // relative; escaped when the name is not plain (safe_fs::escape_name)
  std::string kind;  // symlink, git, special, too_large, too_deep, odd_name
  std::string detail;
};

struct copied_tree {
  std::vector<std::string> files;  // regular files with plain names (what converters get), sorted
  std::size_t symlinks = 0;        // symbolic links copied as links
  std::vector<tree_note> notes;    // links, and what was left out or copied but not converted
  /// {"files": N, "symlinks": [...], "skipped": [...]}, for convert.json's "tree".
  nlohmann::json to_json() const;
};

/// Copies `source` into `dest` (created; existing files are replaced, never written through).
/// Errors (phase io) name the entry that could not be copied and why.
core::result<copied_tree> copy_tree(const std::filesystem::path& source, const std::filesystem::path& dest);

}  // namespace r2r::run
