// SPDX-License-Identifier: MIT
// MANIFEST.sha256: the sha256sum text format (`<64 hex>  <name>\n`, two spaces, text mode), one line
// per bundle file except the manifest itself and its signature (MANIFEST.sig), sorted by name (byte
// order), so `sha256sum -c MANIFEST.sha256` run inside the bundle accepts it. Names are relative
// paths ('/'-separated, files under evidence/ included) whose components have no newline or
// backslash (sha256sum would escape those) and are never empty, "." or "..".
#pragma once

#include <r2r/core/error.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::report {

inline constexpr std::string_view manifest_name = "MANIFEST.sha256";

struct manifest_entry {
  std::string name;
  std::string sha256;  // 64 lowercase hex digits
};

/// Digests of every regular file under `dir` (recursively) except the manifest and its signature,
/// sorted by relative path. Fails when `dir` holds anything else (a link, a device) or a name the
/// format cannot carry.
core::result<std::vector<manifest_entry>> hash_directory(const std::filesystem::path& dir);

/// The manifest text of sorted entries.
std::string render_manifest(const std::vector<manifest_entry>& entries);

/// Parses manifest text strictly: every line well formed, names valid and sorted without
/// duplicates, the text ends with a newline. Errors name the line.
core::result<std::vector<manifest_entry>> parse_manifest(std::string_view text);

}  // namespace r2r::report
