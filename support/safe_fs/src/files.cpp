// SPDX-License-Identifier: MIT
// Reading, writing, creating and removing entries beneath a root.
#include "at_ops.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace r2r::safe_fs {
namespace {

const char* kind_of(mode_t m) {
  switch (m & S_IFMT) {
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFBLK:
      return "a block device";
    case S_IFCHR:
      return "a character device";
    case S_IFLNK:
      return "a symbolic link";
    default:
      return "not a regular file";
  }
}

// Checks that `fd` (opened O_NONBLOCK) is a regular file and makes it blocking again.
unique_fd regular_or_throw(unique_fd fd, const std::string& shown) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) detail::fail_errno(shown, errno, "cannot stat");
  if (!S_ISREG(st.st_mode)) throw error(shown, std::string(kind_of(st.st_mode)) + ", not a regular file; not read");
  const int fl = ::fcntl(fd.get(), F_GETFL);
  if (fl >= 0) ::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

}  // namespace

const char* to_string(entry_type t) noexcept {
  switch (t) {
    case entry_type::regular:
      return "regular file";
    case entry_type::directory:
      return "directory";
    case entry_type::symlink:
      return "symbolic link";
    case entry_type::fifo:
      return "FIFO";
    case entry_type::socket:
      return "socket";
    case entry_type::block_device:
      return "block device";
    case entry_type::char_device:
      return "character device";
    case entry_type::unknown:
      break;
  }
  return "unknown";
}

unique_fd open_regular(const root& r, std::string_view rel) {
  const auto parts = split(rel);
  std::string shown;
  for (const auto& p : parts) shown = detail::join(shown, p);
  return regular_or_throw(open(r, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY), shown.empty() ? "." : shown);
}

unique_fd open_regular_at(int dir_fd, const std::string& name, const std::string& shown) {
  const int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) throw error(shown, "a symbolic link; not followed");
    detail::fail_errno(shown, errno, "cannot open");
  }
  return regular_or_throw(unique_fd(fd), shown);
}

std::string read_file(const root& r, std::string_view rel, std::uint64_t max_bytes) {
  auto fd = open_regular(r, rel);
  std::string out;
  char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) detail::fail_errno(std::string(rel), errno, "cannot read");
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      throw error(std::string(rel), "larger than " + std::to_string(max_bytes) + " bytes; not read");
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

new_file::new_file(const root& r, std::string_view rel, mode_t mode) {
  auto parent = detail::open_parent(r, rel);
  dir_ = std::move(parent.dir);
  name_ = std::move(parent.name);
  shown_ = std::move(parent.shown);
  detail::refuse_directory(dir_.get(), name_, shown_);
  tmp_ = detail::temp_name();
  ::unlinkat(dir_.get(), tmp_.c_str(), 0);
  const int fd = ::openat(dir_.get(), tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) detail::fail_errno(shown_, errno, "cannot create");
  fd_ = unique_fd(fd);
  ::fchmod(fd_.get(), mode & 0777);
}

new_file::~new_file() {
  if (fd_) ::unlinkat(dir_.get(), tmp_.c_str(), 0);
}

void new_file::write(const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_.get(), p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) detail::fail_errno(shown_, errno, "cannot write");
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void new_file::set_mtime(std::int64_t seconds, long nanoseconds) {
  has_mtime_ = true;
  mtime_s_ = seconds;
  mtime_ns_ = nanoseconds;
}

void new_file::commit() {
  if (!fd_) throw error(shown_, "already committed");
  if (has_mtime_) {
    const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(mtime_s_), mtime_ns_}};
    ::futimens(fd_.get(), times);
  }
  detail::refuse_directory(dir_.get(), name_, shown_);
  if (::renameat(dir_.get(), tmp_.c_str(), dir_.get(), name_.c_str()) != 0) {
    detail::fail_errno(shown_, errno, "cannot replace");
  }
  fd_ = unique_fd();
}

void write_file(const root& r, std::string_view rel, std::string_view content, mode_t mode) {
  new_file f(r, rel, mode);
  f.write(content.data(), content.size());
  f.commit();
}

unique_fd make_dirs(const root& r, std::string_view rel, mode_t mode) {
  const auto parts = split(rel);
  unique_fd cur = open_dir(r, "");
  std::string shown;
  for (const auto& p : parts) {
    shown = detail::join(shown, p);
    if (::mkdirat(cur.get(), p.c_str(), mode) != 0 && errno != EEXIST) {
      detail::fail_errno(shown, errno, "cannot create the directory");
    }
    cur = detail::open_dir_at(cur.get(), p, shown, r.label());
  }
  return cur;
}

void make_symlink(const root& r, std::string_view rel, const std::string& target) {
  auto parent = detail::open_parent(r, rel);
  detail::symlink_at(parent.dir.get(), parent.name, target, parent.shown);
}

void remove_tree(const root& r, std::string_view rel) {
  if (split(rel).empty()) {
    detail::remove_contents(open_dir(r, "").get(), "");
    return;
  }
  detail::parent_ref parent;
  try {
    parent = detail::open_parent(r, rel);
  } catch (const error& e) {
    if (e.code() == ENOENT) return;  // nothing to remove
    throw;
  }
  detail::remove_at(parent.dir.get(), parent.name, parent.shown);
}

}  // namespace r2r::safe_fs
