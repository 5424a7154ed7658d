// SPDX-License-Identifier: MIT
// Does the bundle's patch.diff apply to its repo.tar, as the Dockerfile's `patch -p1` needs?
// (internal to r2r_report). The unified diff is parsed and applied in memory, hunk by hunk, to the
// archived files: a hunk applies where its context and removed lines match exactly (at the line it
// names or at any offset after the previous hunk, as patch(1) searches; no fuzz).
#pragma once

#include <r2r/core/error.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <string_view>

namespace r2r::report::detail {

/// The repository paths (`-p1`: first component removed) that `diff` changes; fails when the
/// text is not a unified diff.
core::result<std::set<std::string>> patched_paths(std::string_view diff);

/// Applies `diff` in memory to the files of `archive`; fails naming the file and hunk that does not
/// apply (never the expected text). An empty diff applies to anything.
core::result<void> check_patch_applies(std::string_view diff, const std::filesystem::path& archive);

}  // namespace r2r::report::detail
