// SPDX-License-Identifier: MIT
// Tar archives through libarchive, streamed to and from files so memory stays bounded whatever
// the size of a workspace. Extraction refuses absolute paths, `..` and writes through symlinks.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace r2r::sandbox_common {

/// Writes a tar of `source` (a file or a directory, recursively, symlinks kept as links) to
/// `tar_file`. Entries are named `arcname` and `arcname/...`; an empty arcname puts a directory's
/// contents at the archive root. Throws std::runtime_error with the path and libarchive's reason.
void write_tar(const std::filesystem::path& source, const std::filesystem::path& tar_file, const std::string& arcname);

/// Writes a tar holding regular files named by the keys with the given contents (build contexts).
void write_tar_of_files(const std::map<std::string, std::string>& files, const std::filesystem::path& tar_file);

/// Extracts `tar_file` under `destination` (which must exist). Returns the number of entries.
std::size_t extract_tar(const std::filesystem::path& tar_file, const std::filesystem::path& destination);

}  // namespace r2r::sandbox_common
