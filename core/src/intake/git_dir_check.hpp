// SPDX-License-Identifier: MIT
// Checks of what a local source and its submodules make intake open (issue 19): a repository
// must not be able to point repo2rocm at another repository on this machine, whose contents
// would then end up in repo.tar, the port and the bundle. Internal to r2r_planning (intake).
#pragma once

#include <r2r/core/error.hpp>

#include <filesystem>
#include <string>

namespace r2r::planning::detail {

/// `dir/.git` must be a directory, a link to a directory inside `dir`, or a `gitdir:` file of a
/// linked worktree or submodule whose git directory points back at `dir` (git's own back-references:
/// `<gitdir>/gitdir` naming `dir/.git`, or `core.worktree` naming `dir`). Anything else is a
/// usage error naming what was found and what to do.
core::result<void> check_local_git_dir(const std::filesystem::path& dir);

/// True when `url` (after libgit2 resolved a relative submodule URL) names this machine: a path,
/// or a file:// URL. Submodules with such URLs are refused: a repository could name any
/// repository here.
bool is_local_url(const std::string& url);

}  // namespace r2r::planning::detail
