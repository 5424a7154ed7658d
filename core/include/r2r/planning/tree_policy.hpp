// SPDX-License-Identifier: MIT
// How every reader of a repository tree (the fingerprint scan, the port's tree copy, repo.tar)
// treats what it meets (issue 19; docs/planning.md "Links and special files"). The tree is
// untrusted: it may hold links out of it, FIFOs, devices, a sparse file of many GB, thousands of
// nested directories, names with newlines or bytes that are not UTF-8, and `.git` files naming
// another repository. Readers walk it with safe_fs::bounded_walk (no link is ever followed on the
// host, nothing outside the root is opened) and ask classify_entry() what to do with each entry.
#pragma once

#include <r2r/support/safe_fs.hpp>

#include <cstdint>
#include <string>

namespace r2r::planning {

/// Regular files larger than this are neither read, copied nor archived (noted instead).
inline constexpr std::uint64_t max_tree_file_bytes = 512ULL << 20;
/// Directories deeper than this are not entered (noted instead).
inline constexpr int max_tree_depth = 256;

enum class tree_action {
  enter,      // a directory: walk into it
  take_file,  // a regular file: read / copy / archive it
  keep_link,  // a symbolic link: recreate it with the same text, never follow it on the host
  skip,       // leave it out (the decision's note says why)
};

/// What to do with one entry, and the note to report when there is one (`.git` directories are
/// skipped without one). `kind` is one of
/// symlink, git, special, too_large, odd_name (a file whose name has a control character or is
/// not UTF-8: copied and archived, never read by a scanner nor given to a converter). `detail`
/// says what was done and why, in words; `path` is the entry's path, escaped when not plain.
struct tree_decision {
  tree_action action = tree_action::skip;
  std::string kind;  // empty: nothing to report
  std::string path;
  std::string detail;
  bool plain_name = true;     // the path can go into JSON, a diff header or a log as it is
  std::string inside_target;  // keep_link: the target relative to the root when it stays inside
};

tree_decision classify_entry(const safe_fs::walk_entry& e);

}  // namespace r2r::planning
