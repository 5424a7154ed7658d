// SPDX-License-Identifier: MIT
// A strict reader of the bundle's repo.tar (internal to r2r_report): walks every header of a
// ustar/PAX/GNU archive, checks each header's checksum, that every member's data is inside the
// file and that the archive ends with its end-of-archive marker (two zero blocks), so an empty,
// truncated or garbage repo.tar is told apart from a real one.
#pragma once

#include <r2r/core/error.hpp>

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace r2r::report::detail {

struct tar_contents {
  std::size_t regular_files = 0;              // regular-file members
  std::set<std::string> names;                // every member path, "./" and a trailing "/" removed
  std::map<std::string, std::string> wanted;  // content of the regular files asked for that exist
};

/// Reads `archive`; collects the content of the regular files whose normalised path is in `wanted`.
/// Fails (naming the offset, never the archive's content) when the archive is malformed.
core::result<tar_contents> read_tar(const std::filesystem::path& archive, const std::set<std::string>& wanted);

/// A member path as compared with patch.diff's paths: leading "./" and trailing "/" removed.
std::string normalize_tar_path(std::string path);

}  // namespace r2r::report::detail
