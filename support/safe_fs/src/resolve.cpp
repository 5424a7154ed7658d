// SPDX-License-Identifier: MIT
// Path resolution beneath a root: openat2 where the kernel allows it, a component walk otherwise.
#include "at_ops.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace r2r::safe_fs {
namespace {

std::atomic<resolver> chosen{resolver::automatic};
std::atomic<bool> openat2_missing{false};  // learnt in automatic mode

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

// -1 with errno set; errno ENOSYS/EPERM means "no openat2 here".
int try_openat2(int root_fd, const std::string& path, int flags, mode_t mode) {
#ifdef SYS_openat2
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  int fd;
  do {
    fd = static_cast<int>(::syscall(SYS_openat2, root_fd, path.empty() ? "." : path.c_str(), &how, sizeof how));
  } while (fd < 0 && (errno == EAGAIN || errno == EINTR));
  return fd;
#else
  (void)root_fd, (void)path, (void)flags, (void)mode;
  errno = ENOSYS;
  return -1;
#endif
}

// Explains a failed open of `shown`: a link on the way is named as such.
[[noreturn]] void explain(const root& r, const std::vector<std::string>& parts, const std::string& shown, int err) {
  if (err == ELOOP || err == EXDEV) detail::fail_link(shown, r.label());
  if (err == ENOTDIR) {
    // A link or a file in place of a directory: find out which, through the walk.
    int cur = r.fd();
    unique_fd held;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      struct stat st {};
      if (::fstatat(cur, parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) break;
      if (S_ISLNK(st.st_mode)) detail::fail_link(shown, r.label());
      if (!S_ISDIR(st.st_mode)) throw error(shown, "a path component is not a directory", ENOTDIR);
      if (i + 1 == parts.size()) break;
      held = unique_fd(::openat(cur, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!held) break;
      cur = held.get();
    }
  }
  detail::fail_errno(shown, err, "cannot open");
}

unique_fd walk_open(const root& r, const std::vector<std::string>& parts, const std::string& shown, int flags,
                    mode_t mode) {
  if (parts.empty()) {
    const int fd = ::openat(r.fd(), ".", flags & ~(O_CREAT | O_EXCL | O_TRUNC), mode);
    if (fd < 0) detail::fail_errno(shown.empty() ? "." : shown, errno, "cannot open");
    return unique_fd(fd);
  }
  int cur = r.fd();
  unique_fd held;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const int fd = ::openat(cur, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      struct stat st {};
      if ((err == ELOOP || err == ENOTDIR) && ::fstatat(cur, parts[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode)) detail::fail_link(shown, r.label());
        throw error(shown, "a path component is not a directory");
      }
      detail::fail_errno(shown, err, "cannot open");
    }
    held = unique_fd(fd);
    cur = fd;
  }
  const int fd = ::openat(cur, parts.back().c_str(), flags, mode);
  if (fd < 0) {
    const int err = errno;
    struct stat st {};
    if ((err == ELOOP || err == ENOTDIR) && ::fstatat(cur, parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode)) {
      detail::fail_link(shown, r.label());
    }
    detail::fail_errno(shown, err, "cannot open");
  }
  return unique_fd(fd);
}

}  // namespace

error::error(std::string path, std::string reason, int code)
    : std::runtime_error(path + ": " + reason), path_(std::move(path)), reason_(std::move(reason)), code_(code) {}

unique_fd::~unique_fd() {
  if (fd_ >= 0) ::close(fd_);
}

unique_fd& unique_fd::operator=(unique_fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

root::root(unique_fd fd, std::filesystem::path path, std::string label)
    : fd_(std::move(fd)), path_(std::move(path)), label_(std::move(label)) {}

root root::open(const std::filesystem::path& dir, std::string label) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) detail::fail_errno(dir.string(), errno, "cannot open the " + label);
  return root(unique_fd(fd), dir, std::move(label));
}

void set_resolver(resolver r) noexcept {
  chosen.store(r);
  if (r == resolver::automatic) openat2_missing.store(false);
}

resolver current_resolver() noexcept {
  return chosen.load();
}

std::vector<std::string> split(std::string_view rel) {
  const std::string shown(rel);
  if (rel.find('\0') != std::string_view::npos) throw error(shown, "the path holds a NUL byte");
  if (!rel.empty() && rel.front() == '/') {
    throw error(shown, "an absolute path; expected a path relative to the directory it is resolved beneath");
  }
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= rel.size()) {
    const std::size_t end = std::min(rel.find('/', start), rel.size());
    const std::string_view part = rel.substr(start, end - start);
    if (part == "..") throw error(shown, "a '..' component; refusing to leave the directory it is resolved beneath");
    if (!part.empty() && part != ".") parts.emplace_back(part);
    start = end + 1;
  }
  return parts;
}

unique_fd open(const root& r, std::string_view rel, int flags, mode_t mode) {
  const auto parts = split(rel);
  const std::string shown = parts.empty() ? std::string(".") : joined(parts);
  flags |= O_NOFOLLOW | O_CLOEXEC;
  const resolver how = chosen.load();
  if (how == resolver::openat2 || (how == resolver::automatic && !openat2_missing.load())) {
    const int fd = try_openat2(r.fd(), joined(parts), flags, mode);
    if (fd >= 0) return unique_fd(fd);
    const int err = errno;
    if (how == resolver::openat2 || (err != ENOSYS && err != EPERM)) explain(r, parts, shown, err);
    // EPERM may be the file's own answer (an immutable file opened for writing): openat2 is only
    // given up when it refuses even an O_PATH open of the root.
    if (err == EPERM) {
      const unique_fd probe(try_openat2(r.fd(), "", O_PATH | O_DIRECTORY | O_CLOEXEC, 0));
      if (probe) explain(r, parts, shown, err);  // openat2 works here; the EPERM was about this path
    }
    openat2_missing.store(true);
  }
  return walk_open(r, parts, shown, flags, mode);
}

unique_fd open_dir(const root& r, std::string_view rel) {
  return open(r, rel, O_RDONLY | O_DIRECTORY);
}

namespace detail {

parent_ref open_parent(const root& r, std::string_view rel) {
  auto parts = split(rel);
  if (parts.empty()) throw error(std::string(rel), "names the " + r.label() + " itself, not an entry beneath it");
  parent_ref out;
  out.shown = joined(parts);
  out.name = parts.back();
  parts.pop_back();
  try {
    out.dir = open_dir(r, joined(parts));
  } catch (const error& e) {
    throw error(out.shown, e.reason(), e.code());
  }
  return out;
}

}  // namespace detail
}  // namespace r2r::safe_fs
