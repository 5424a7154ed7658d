// SPDX-License-Identifier: MIT
// A hostile repository for the containment tests (issue 19): links that point out of the
// repository (absolute, relative, to a directory), a `-r` requirements include through such a
// link, dangling and looping links, names with a newline, non-UTF-8 bytes and a leading dash, and,
// for the plain-directory form only (git cannot commit them), a FIFO, a character device, a
// hardlink to a file outside, a sparse file of several GB, thousands of nested directories and a
// `.git` file pointing elsewhere. Every link points into a canary directory the test owns, so
// that "nothing outside changed" can be checked by listing it before and after.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace r2r::test {

/// Text of canary files: must never show up in any output.
inline constexpr const char* canary_secret = "CANARY-SECRET-7f3a";
inline constexpr const char* canary_package = "canarysecretpkg";

/// Creates `canary` with secret.cu, secret-reqs.txt (a requirement naming canary_package) and
/// fakegit/ (a real git repository holding secret.cu).
void make_canary(const std::filesystem::path& canary);

/// Writes the committable hostile entries and an honest CUDA project into `root`, links pointing
/// into `canary`, and commits them with git. Returns the commit SHA.
std::string make_hostile_repo(const std::filesystem::path& root, const std::filesystem::path& canary);

struct uncommittable_options {
  std::uint64_t sparse_bytes = 3ULL << 30;  // huge.cu, a hole: no disk used
  int depth = 3000;                         // deep/d/d/.../leaf.cu
};
/// Adds the entries git cannot commit (see the file comment) to the working directory `root`.
/// Returns the names that could not be created here (a device node without the privilege).
std::vector<std::string> add_uncommittable_entries(const std::filesystem::path& root,
                                                   const std::filesystem::path& canary,
                                                   const uncommittable_options& options = {});

/// Everything under `dir` (links never followed) as path -> "type size mtime [-> target]",
/// without the subtrees in `excluded` and without what lies deeper than `max_depth`.
std::map<std::string, std::string> listing(const std::filesystem::path& dir,
                                           const std::vector<std::filesystem::path>& excluded = {}, int max_depth = 64);

/// The lines of `before` and `after` that differ, for a readable failure message.
std::string listing_diff(const std::map<std::string, std::string>& before,
                         const std::map<std::string, std::string>& after);

}  // namespace r2r::test
