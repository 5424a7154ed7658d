// SPDX-License-Identifier: MIT
#include "rootfs_jail.hpp"

#include <filesystem>
#include <stdexcept>

namespace r2r::plugins::converter {
namespace {

namespace fs = std::filesystem;

/// `path` relative to `dir` when it lies beneath it (component-wise, after lexical normalisation,
/// so "/a/bc" is not beneath "/a/b" and "/a/b/../c" is not either); nullopt otherwise.
std::optional<std::string> beneath(const std::string& dir, const std::string& path) {
  if (dir.empty()) return std::nullopt;
  const fs::path d = fs::path(dir).lexically_normal();
  const fs::path p = fs::path(path).lexically_normal();
  const fs::path rel = p.lexically_relative(d);
  if (rel.empty()) return std::nullopt;
  if (rel == ".") return std::string();
  if (*rel.begin() == "..") return std::nullopt;
  return rel.generic_string();
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

std::string without_trailing_slash(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

rootfs_jail::rootfs_jail(std::string rootfs, std::string bwrap)
    : rootfs_(without_trailing_slash(std::move(rootfs))), bwrap_(std::move(bwrap)) {
  if (rootfs_.empty() || rootfs_.front() != '/') {
    throw std::invalid_argument("toolchain rootfs must be an absolute directory, found '" + rootfs_ + "'");
  }
  std::error_code ec;
  if (!fs::exists(fs::path(rootfs_) / "usr/bin/hipcc", ec)) {
    throw std::invalid_argument("toolchain rootfs " + rootfs_ +
                                " has no usr/bin/hipcc; build one with scripts/toolchains/hip.sh 6.4 " + rootfs_);
  }
  // bwrap mounts the bound directories on these; the rootfs itself is bound read-only, so they
  // must exist beforehand (scripts/toolchains/hip.sh makes them; an older rootfs gets them here).
  for (const char* guest : {guest_sources, guest_scratch}) {
    fs::create_directories(fs::path(rootfs_) / (guest + 1), ec);
  }
}

void rootfs_jail::bind(std::string sources, std::string scratch) {
  sources_ = sources.empty() ? std::string() : without_trailing_slash(fs::absolute(sources).lexically_normal());
  scratch_ = scratch.empty() ? std::string() : without_trailing_slash(fs::absolute(scratch).lexically_normal());
}

std::optional<std::string> rootfs_jail::guest_path(const std::string& host) const {
  // The scratch directory is checked first: inline sources are written beneath it.
  if (auto rel = beneath(scratch_, host)) return rel->empty() ? guest_scratch : std::string(guest_scratch) + "/" + *rel;
  if (auto rel = beneath(sources_, host)) return rel->empty() ? guest_sources : std::string(guest_sources) + "/" + *rel;
  return std::nullopt;
}

std::string rootfs_jail::host_text(std::string text) const {
  replace_all(text, std::string(guest_scratch) + "/", scratch_ + "/");
  if (!sources_.empty()) replace_all(text, std::string(guest_sources) + "/", sources_ + "/");
  return text;
}

std::vector<std::string> rootfs_jail::prefix() const {
  std::vector<std::string> argv{
      bwrap_,   "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", rootfs_, "/", "--dev", "/dev",
      "--proc", "/proc",         "--tmpfs",           "/tmp"};
  if (!sources_.empty()) argv.insert(argv.end(), {"--ro-bind", sources_, guest_sources});
  if (!scratch_.empty()) argv.insert(argv.end(), {"--bind", scratch_, guest_scratch});
  argv.insert(argv.end(),
              {"--clearenv", "--setenv", "PATH", "/usr/sbin:/usr/bin:/sbin:/bin", "--setenv", "HOME", "/tmp",
               "--setenv", "LANG", "C.UTF-8", "--chdir", scratch_.empty() ? "/tmp" : guest_scratch, "--"});
  return argv;
}

}  // namespace r2r::plugins::converter
