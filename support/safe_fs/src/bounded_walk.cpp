// SPDX-License-Identifier: MIT
#include <r2r/support/safe_fs_bounded_walk.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace r2r::safe_fs {
namespace {

entry_type type_of(mode_t m) {
  if (S_ISREG(m)) return entry_type::regular;
  if (S_ISDIR(m)) return entry_type::directory;
  if (S_ISLNK(m)) return entry_type::symlink;
  if (S_ISFIFO(m)) return entry_type::fifo;
  if (S_ISSOCK(m)) return entry_type::socket;
  if (S_ISBLK(m)) return entry_type::block_device;
  if (S_ISCHR(m)) return entry_type::char_device;
  return entry_type::unknown;
}

/// The entries of the open directory `fd`, lstat'ed and sorted.
std::vector<entry> read_entries(int fd, const std::string& shown) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) throw error(shown, std::string("cannot duplicate the directory fd: ") + std::strerror(errno));
  DIR* d = ::fdopendir(copy);
  if (d == nullptr) {
    const int err = errno;
    ::close(copy);
    throw error(shown, std::string("cannot read the directory: ") + std::strerror(err));
  }
  std::vector<entry> out;
  errno = 0;
  while (const dirent* de = ::readdir(d)) {
    const std::string name = de->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // vanished meanwhile
    entry e;
    e.name = name;
    e.type = type_of(st.st_mode);
    e.mode = st.st_mode & 07777;
    e.size = static_cast<std::uint64_t>(st.st_size);
    e.mtime_s = st.st_mtim.tv_sec;
    e.mtime_ns = st.st_mtim.tv_nsec;
    e.inode = st.st_ino;
    e.links = st.st_nlink;
    out.push_back(std::move(e));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const entry& a, const entry& b) { return a.name < b.name; });
  return out;
}

struct frame {
  unique_fd fd;
  std::string prefix;  // "" for the root, else "a/b/"
  std::vector<entry> entries;
  std::size_t next = 0;
};

std::size_t utf8_length(const unsigned char* s, std::size_t left) {
  const unsigned char c = s[0];
  std::size_t n = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4;
  else
    return 0;
  if (n > left) return 0;
  for (std::size_t i = 1; i < n; ++i)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && s[1] < 0xA0) return 0;   // overlong
  if (c == 0xED && s[1] >= 0xA0) return 0;  // surrogates
  if (c == 0xF0 && s[1] < 0x90) return 0;   // overlong
  if (c == 0xF4 && s[1] >= 0x90) return 0;  // beyond U+10FFFF
  return n;
}

}  // namespace

std::vector<skipped_entry> bounded_walk(const root& r, const bounded_walk_options& options,
                                        const std::function<bool(const walk_entry&)>& visit) {
  std::vector<skipped_entry> limits;
  std::vector<frame> stack;
  {
    const int fd = ::openat(r.fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw error(r.path().string(), std::string("cannot open: ") + std::strerror(errno));
    frame top;
    top.fd = unique_fd(fd);
    top.entries = read_entries(fd, r.path().string());
    stack.push_back(std::move(top));
  }
  while (!stack.empty()) {
    frame& f = stack.back();
    if (f.next == f.entries.size()) {
      stack.pop_back();
      continue;
    }
    const entry& e = f.entries[f.next++];
    walk_entry w;
    w.path = f.prefix + e.name;
    w.info = e;
    w.dir_fd = f.fd.get();
    if (e.type == entry_type::symlink) {
      std::string buf(4096, '\0');
      const ssize_t n = ::readlinkat(f.fd.get(), e.name.c_str(), buf.data(), buf.size());
      if (n > 0) w.link_target.assign(buf.data(), static_cast<std::size_t>(n));
    }
    const bool enter = visit(w);
    if (e.type != entry_type::directory || !enter) continue;
    const int depth = static_cast<int>(stack.size());  // the entry's depth: 1 for the root's entries
    if (depth >= options.max_depth) {
      limits.push_back({w.path, "deeper than " + std::to_string(options.max_depth) + " levels: not read"});
      continue;
    }
    const int fd = ::openat(f.fd.get(), e.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw error(w.path, std::string("cannot open the directory: ") + std::strerror(errno));
    frame child;
    child.fd = unique_fd(fd);
    child.prefix = w.path + "/";
    child.entries = read_entries(fd, w.path);
    stack.push_back(std::move(child));  // invalidates `f` and `e`: not used below
  }
  return limits;
}

bool plain_name(const std::string& name) noexcept {
  const auto* s = reinterpret_cast<const unsigned char*>(name.data());
  for (std::size_t i = 0; i < name.size();) {
    if (s[i] < 0x20 || s[i] == 0x7F) return false;
    const std::size_t n = utf8_length(s + i, name.size() - i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string escape_name(const std::string& name) {
  static const char hex[] = "0123456789abcdef";
  const auto* s = reinterpret_cast<const unsigned char*>(name.data());
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    const unsigned char c = s[i];
    const std::size_t n = c < 0x20 || c == 0x7F ? 0 : utf8_length(s + i, name.size() - i);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (n == 0) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out.append(name, i, n);
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

std::string link_target_inside(const std::string& link_rel, const std::string& target) {
  if (target.empty() || target.front() == '/') return {};
  const std::filesystem::path joined = (std::filesystem::path(link_rel).parent_path() / target).lexically_normal();
  const std::string s = joined.generic_string();
  if (s.empty() || s == "." || s == ".." || s.rfind("../", 0) == 0 || joined.is_absolute()) return {};
  return s.back() == '/' ? s.substr(0, s.size() - 1) : s;
}

}  // namespace r2r::safe_fs
