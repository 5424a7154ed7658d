// SPDX-License-Identifier: MIT
// Tar archives through libarchive, streamed to and from files so memory stays bounded whatever
// the size of a workspace. Both directions go through safe_fs (support/safe_fs): archiving walks
// directory fds and stores links as links, never following one; extraction refuses absolute paths
// and `..`, and never writes through a link (one created by an earlier member included).
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace r2r::tarball {

/// Writes a tar of `source` (a file or a directory, recursively, symlinks kept as links) to
/// `tar_file`. Entries are named `arcname` and `arcname/...`; an empty arcname puts a directory's
/// contents at the archive root. Throws std::runtime_error with the path and libarchive's reason.
void write_tar(const std::filesystem::path& source, const std::filesystem::path& tar_file, const std::string& arcname);

/// Writes a tar holding regular files named by the keys with the given contents (build contexts).
void write_tar_of_files(const std::map<std::string, std::string>& files, const std::filesystem::path& tar_file);

/// Extracts `tar_file` under `destination` (which must exist). Returns the number of entries.
/// `label` names the destination in errors ("workspace"). Hardlink members become copies.
std::size_t extract_tar(const std::filesystem::path& tar_file, const std::filesystem::path& destination,
                        const std::string& label = "destination directory");

}  // namespace r2r::tarball
