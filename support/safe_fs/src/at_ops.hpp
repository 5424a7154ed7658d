// SPDX-License-Identifier: MIT
// Private to safe_fs: operations on one entry `name` of an open directory fd. `name` is a single
// component (no '/'); nothing here follows a link. `shown` is the path errors name.
#pragma once

#include <r2r/support/safe_fs.hpp>

#include <sys/stat.h>

#include <string>

namespace r2r::safe_fs::detail {

[[noreturn]] void fail_errno(const std::string& shown, int err, const std::string& doing);
[[noreturn]] void fail_link(const std::string& shown, const std::string& label);

/// lstat of `name` in `dir_fd`; false when it does not exist (other errors throw).
bool lstat_at(int dir_fd, const std::string& name, struct stat& st, const std::string& shown);
entry to_entry(const std::string& name, const struct stat& st);

/// Opens the directory `name` in `dir_fd` without following a link; throws naming the link.
unique_fd open_dir_at(int dir_fd, const std::string& name, const std::string& shown, const std::string& label);

/// Removes `name` (recursively for a directory); a missing name is not an error.
void remove_at(int dir_fd, const std::string& name, const std::string& shown);
/// Removes everything inside the directory `dir_fd`.
void remove_contents(int dir_fd, const std::string& shown);

/// A fresh temporary name for a new entry of a directory.
std::string temp_name();
/// Refuses to replace a directory: throws when `name` in `dir_fd` is one.
void refuse_directory(int dir_fd, const std::string& name, const std::string& shown);
/// Creates a symbolic link `name` -> `target` in `dir_fd`, replacing a non-directory atomically.
void symlink_at(int dir_fd, const std::string& name, const std::string& target, const std::string& shown);

/// Names of the entries of `dir_fd` (not `.`/`..`), sorted.
std::vector<std::string> names_in(int dir_fd, const std::string& shown);

/// `parent` joined with `name` for messages ("" parent: just the name).
std::string join(const std::string& parent, const std::string& name);

/// The directory holding the last component of `rel`, and that component; `rel` must not be the root.
struct parent_ref {
  unique_fd dir;
  std::string name;
  std::string shown;
};
parent_ref open_parent(const root& r, std::string_view rel);

}  // namespace r2r::safe_fs::detail
