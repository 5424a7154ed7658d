// SPDX-License-Identifier: MIT
#include "git_dir_check.hpp"

#include <fstream>
#include <regex>
#include <sstream>

namespace r2r::planning::detail {
namespace {

namespace fs = std::filesystem;

std::string first_line(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

/// core.worktree of the git directory `gitdir`, resolved against it; empty when not set.
fs::path configured_worktree(const fs::path& gitdir) {
  std::ifstream in(gitdir / "config");
  static const std::regex worktree(R"(^\s*worktree\s*=\s*(.*?)\s*$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, worktree)) {
      const fs::path p = m[1].str();
      return p.is_absolute() ? p : gitdir / p;
    }
  }
  return {};
}

core::error refused(const fs::path& dir, const std::string& what) {
  return core::error{core::phase::usage,
                     (dir / ".git").string() + " " + what +
                         "; repo2rocm reads only the repository inside the directory it is given. Clone the "
                         "repository you mean (git clone) and pass that directory, or remove the .git entry",
                     "", (dir / ".git").string()};
}

}  // namespace

core::result<void> check_local_git_dir(const fs::path& dir) {
  std::error_code ec;
  const fs::path dot_git = dir / ".git";
  const auto st = fs::symlink_status(dot_git, ec);
  if (ec || !fs::exists(st) || fs::is_directory(st)) return {};  // no .git (a bare repository) or a real one
  if (fs::is_symlink(st)) {
    const fs::path target = fs::weakly_canonical(dot_git, ec);
    const fs::path root = fs::weakly_canonical(dir, ec);
    const auto rel = target.lexically_relative(root).generic_string();
    if (rel.empty() || rel == ".." || rel.rfind("../", 0) == 0)
      return tl::unexpected(refused(dir, "is a symbolic link to " + target.string() + ", outside the directory"));
    return {};
  }
  if (!fs::is_regular_file(st)) return tl::unexpected(refused(dir, "is neither a directory nor a gitdir file"));
  const std::string line = first_line(dot_git);
  if (line.rfind("gitdir:", 0) != 0) return tl::unexpected(refused(dir, "is a file but does not start with `gitdir:`"));
  std::string named = line.substr(7);
  while (!named.empty() && named.front() == ' ') named.erase(0, 1);
  fs::path gitdir = named;
  if (gitdir.is_relative()) gitdir = dir / gitdir;
  // A linked worktree: <gitdir>/gitdir names this directory's .git file.
  const std::string back = first_line(gitdir / "gitdir");
  if (!back.empty() && same_file(fs::path(back), dot_git)) return {};
  // A submodule's checkout: the git directory's core.worktree is this directory.
  if (const fs::path wt = configured_worktree(gitdir); !wt.empty() && same_file(wt, dir)) return {};
  return tl::unexpected(refused(dir, "is a file that names the git directory " + gitdir.string() +
                                         ", which does not point back at this directory (not a worktree or "
                                         "submodule of it)"));
}

bool is_local_url(const std::string& url) {
  if (url.rfind("file:", 0) == 0) return true;
  if (url.find("://") != std::string::npos) return false;
  // scp-like host:path (git@host:org/repo) is remote; a path (absolute, relative, ~) is local.
  static const std::regex scp(R"(^[A-Za-z0-9_.@-]+:[^/].*)");
  return !std::regex_match(url, scp);
}

}  // namespace r2r::planning::detail
