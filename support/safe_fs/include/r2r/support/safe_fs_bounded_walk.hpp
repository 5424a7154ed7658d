// SPDX-License-Identifier: MIT
// A walk beneath a safe_fs root for trees an untrusted party wrote (a cloned repository): like
// safe_fs::walk() it never follows a link and never leaves the root, and in addition it is
// iterative (no recursion: no stack overflow however deep the tree), stops descending at a depth
// limit and lets the caller prune directories (`.git`). Added beside safe_fs.hpp for the
// repository side (intake, plan, port); it uses only safe_fs's public types.
// THREADING: one walk per call; the callback runs on the calling thread.
#pragma once

#include <r2r/support/safe_fs.hpp>

#include <functional>
#include <string>
#include <vector>

namespace r2r::safe_fs {

struct bounded_walk_options {
  /// Directories at this depth (1 = an entry of the root) are visited but not entered; each is
  /// reported in the result. Every open directory holds one fd, so this also bounds the fds used.
  int max_depth = 256;
};

/// Visits everything beneath `r` (not the root itself), depth first, pre-order, entries of a
/// directory sorted by name (bytes). `visit` returns false to keep the walk out of a directory
/// (ignored for other entries). `walk_entry::dir_fd` is the entry's directory, open during the
/// callback; `link_target` holds a link's text. Returns the directories not entered because of
/// the depth limit ("deeper than N levels: not read"). Throws `error` when the root or a
/// directory cannot be read.
std::vector<skipped_entry> bounded_walk(const root& r, const bounded_walk_options& options,
                                        const std::function<bool(const walk_entry&)>& visit);

/// True when `name` is valid UTF-8 with no control character (newline, tab, DEL...): a name that
/// can be written into JSON, a diff header or a log line as it is.
bool plain_name(const std::string& name) noexcept;

/// `name` with control characters written as \n, \t or \xHH and bytes that are not UTF-8 as
/// \xHH (and `\` as `\\`): printable, unambiguous, always valid UTF-8.
std::string escape_name(const std::string& name);

/// Where the link `link_rel` (relative to the root) with text `target` points, relative to the
/// root and normalised lexically; empty when it points outside (absolute text, or `..` leaving
/// the root). Later links on the way are not resolved: readers still open the result beneath the
/// root without following links.
std::string link_target_inside(const std::string& link_rel, const std::string& target);

}  // namespace r2r::safe_fs
