// SPDX-License-Identifier: MIT
#include "at_ops.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

namespace r2r::safe_fs::detail {

void fail_errno(const std::string& shown, int err, const std::string& doing) {
  throw error(shown, doing + ": " + std::strerror(err), err);
}

void fail_link(const std::string& shown, const std::string& label) {
  throw error(shown, "a path component is a symbolic link; refusing to follow it out of the " + label);
}

std::string join(const std::string& parent, const std::string& name) {
  return parent.empty() || parent == "." ? name : parent + "/" + name;
}

bool lstat_at(int dir_fd, const std::string& name, struct stat& st, const std::string& shown) {
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return true;
  if (errno == ENOENT) return false;
  fail_errno(shown, errno, "cannot stat");
}

entry to_entry(const std::string& name, const struct stat& st) {
  entry e;
  e.name = name;
  const auto m = st.st_mode & S_IFMT;
  e.type = m == S_IFREG    ? entry_type::regular
           : m == S_IFDIR  ? entry_type::directory
           : m == S_IFLNK  ? entry_type::symlink
           : m == S_IFIFO  ? entry_type::fifo
           : m == S_IFSOCK ? entry_type::socket
           : m == S_IFBLK  ? entry_type::block_device
           : m == S_IFCHR  ? entry_type::char_device
                           : entry_type::unknown;
  e.mode = st.st_mode & 07777;
  e.size = static_cast<std::uint64_t>(st.st_size);
  e.mtime_s = st.st_mtim.tv_sec;
  e.mtime_ns = st.st_mtim.tv_nsec;
  e.inode = st.st_ino;
  e.links = st.st_nlink;
  e.uid = st.st_uid;
  e.gid = st.st_gid;
  return e;
}

unique_fd open_dir_at(int dir_fd, const std::string& name, const std::string& shown, const std::string& label) {
  const int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return unique_fd(fd);
  const int err = errno;
  struct stat st {};
  if ((err == ELOOP || err == ENOTDIR) && ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) fail_link(shown, label);
    throw error(shown, "not a directory");
  }
  fail_errno(shown, err, "cannot open the directory");
}

std::vector<std::string> names_in(int dir_fd, const std::string& shown) {
  const int copy = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0) fail_errno(shown, errno, "cannot list");
  DIR* d = ::fdopendir(copy);
  if (d == nullptr) {
    const int err = errno;
    ::close(copy);
    fail_errno(shown, err, "cannot list");
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
    errno = 0;
  }
  const int err = errno;
  ::closedir(d);
  if (err != 0) fail_errno(shown, err, "cannot list");
  std::sort(names.begin(), names.end());
  return names;
}

void remove_contents(int dir_fd, const std::string& shown) {
  for (const auto& n : names_in(dir_fd, shown)) remove_at(dir_fd, n, join(shown, n));
}

void remove_at(int dir_fd, const std::string& name, const std::string& shown) {
  if (::unlinkat(dir_fd, name.c_str(), 0) == 0 || errno == ENOENT) return;
  const int err = errno;
  struct stat st {};
  if (!lstat_at(dir_fd, name, st, shown)) return;
  if (!S_ISDIR(st.st_mode)) fail_errno(shown, err, "cannot remove");
  {
    const int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) fail_errno(shown, errno, "cannot open the directory to remove it");
    unique_fd child(fd);
    ::fchmod(child.get(), 0700);  // a directory the agent made read-only can still be emptied
    remove_contents(child.get(), shown);
  }
  if (::unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) fail_errno(shown, errno, "cannot remove");
}

std::string temp_name() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[40];
  std::snprintf(buf, sizeof buf, ".r2r-new-%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

void refuse_directory(int dir_fd, const std::string& name, const std::string& shown) {
  struct stat st {};
  if (lstat_at(dir_fd, name, st, shown) && S_ISDIR(st.st_mode)) {
    throw error(shown, "is a directory; refusing to replace it with a file or a link");
  }
}

void symlink_at(int dir_fd, const std::string& name, const std::string& target, const std::string& shown) {
  refuse_directory(dir_fd, name, shown);
  const std::string tmp = temp_name();
  if (::symlinkat(target.c_str(), dir_fd, tmp.c_str()) != 0) fail_errno(shown, errno, "cannot create the link");
  if (::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    fail_errno(shown, err, "cannot create the link");
  }
}

}  // namespace r2r::safe_fs::detail
