// SPDX-License-Identifier: MIT
// Listing, walking and copying trees beneath roots, one directory fd at a time.
#include "at_ops.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace r2r::safe_fs {
namespace {

std::string read_link_at(int dir_fd, const std::string& name, const std::string& shown) {
  std::string buf(256, '\0');
  for (;;) {
    const ssize_t n = ::readlinkat(dir_fd, name.c_str(), buf.data(), buf.size());
    if (n < 0) detail::fail_errno(shown, errno, "cannot read the link");
    if (static_cast<std::size_t>(n) < buf.size()) {
      buf.resize(static_cast<std::size_t>(n));
      return buf;
    }
    buf.resize(buf.size() * 2);
  }
}

void walk_dir(int dir_fd, const std::string& prefix, const std::string& label,
              const std::function<void(const walk_entry&)>& visit) {
  for (const auto& name : detail::names_in(dir_fd, prefix.empty() ? "." : prefix)) {
    walk_entry w;
    w.path = detail::join(prefix, name);
    struct stat st {};
    if (!detail::lstat_at(dir_fd, name, st, w.path)) continue;  // removed meanwhile
    w.info = detail::to_entry(name, st);
    w.dir_fd = dir_fd;
    if (w.info.type == entry_type::symlink) w.link_target = read_link_at(dir_fd, name, w.path);
    visit(w);
    if (w.info.type == entry_type::directory) {
      auto child = detail::open_dir_at(dir_fd, name, w.path, label);
      walk_dir(child.get(), w.path, label, visit);
    }
  }
}

struct copier {
  const root& src;
  const root& dst;
  copy_report report;

  void file(int sdir, const std::string& sname, const std::string& sshown, int ddir, const std::string& dname,
            const std::string& dshown, const struct stat& st) {
    auto in = open_regular_at(sdir, sname, sshown);
    detail::refuse_directory(ddir, dname, dshown);
    const std::string tmp = detail::temp_name();
    const int fd = ::openat(ddir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) detail::fail_errno(dshown, errno, "cannot create");
    unique_fd out(fd);
    bool done = false;
    struct cleanup {
      int dir;
      const std::string& name;
      bool& done;
      ~cleanup() {
        if (!done) ::unlinkat(dir, name.c_str(), 0);
      }
    } guard{ddir, tmp, done};
    char buf[64 * 1024];
    for (;;) {
      const ssize_t n = ::read(in.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) detail::fail_errno(sshown, errno, "cannot read");
      if (n == 0) break;
      for (ssize_t off = 0; off < n;) {
        const ssize_t w = ::write(out.get(), buf + off, static_cast<std::size_t>(n - off));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) detail::fail_errno(dshown, errno, "cannot write");
        off += w;
      }
      report.bytes += static_cast<std::uint64_t>(n);
    }
    ::fchmod(out.get(), st.st_mode & 0777);
    if (::renameat(ddir, tmp.c_str(), ddir, dname.c_str()) != 0) detail::fail_errno(dshown, errno, "cannot replace");
    done = true;
    ++report.files;
  }

  // Copies the entries of directory `sfd` into directory `dfd`.
  void contents(int sfd, const std::string& sshown, int dfd, const std::string& dshown) {
    for (const auto& name : detail::names_in(sfd, sshown.empty() ? "." : sshown)) {
      object(sfd, name, detail::join(sshown, name), dfd, name, detail::join(dshown, name));
    }
  }

  void object(int sdir, const std::string& sname, const std::string& sshown, int ddir, const std::string& dname,
              const std::string& dshown) {
    struct stat st {};
    if (!detail::lstat_at(sdir, sname, st, sshown)) throw error(sshown, "no such file or directory", ENOENT);
    if (S_ISREG(st.st_mode)) return file(sdir, sname, sshown, ddir, dname, dshown, st);
    if (S_ISLNK(st.st_mode)) {
      detail::symlink_at(ddir, dname, read_link_at(sdir, sname, sshown), dshown);
      ++report.symlinks;
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      struct stat dst_st {};
      if (detail::lstat_at(ddir, dname, dst_st, dshown) && !S_ISDIR(dst_st.st_mode)) {
        detail::remove_at(ddir, dname, dshown);  // a file or link in the way is replaced, never entered
      }
      if (::mkdirat(ddir, dname.c_str(), 0700) != 0 && errno != EEXIST) {
        detail::fail_errno(dshown, errno, "cannot create the directory");
      }
      auto s = detail::open_dir_at(sdir, sname, sshown, src.label());
      auto d = detail::open_dir_at(ddir, dname, dshown, dst.label());
      contents(s.get(), sshown, d.get(), dshown);
      ::fchmod(d.get(), (st.st_mode & 0777) | 0700);
      ++report.directories;
      return;
    }
    report.skipped.push_back({sshown, std::string("a ") + to_string(detail::to_entry(sname, st).type) +
                                          ": only files, directories and links are copied"});
  }
};

}  // namespace

std::vector<entry> list(const root& r, std::string_view rel) {
  auto dir = open_dir(r, rel);
  std::string shown;
  for (const auto& p : split(rel)) shown = detail::join(shown, p);
  std::vector<entry> out;
  for (const auto& name : detail::names_in(dir.get(), shown.empty() ? "." : shown)) {
    struct stat st {};
    if (detail::lstat_at(dir.get(), name, st, detail::join(shown, name))) out.push_back(detail::to_entry(name, st));
  }
  return out;
}

entry stat(const root& r, std::string_view rel) {
  if (split(rel).empty()) {
    struct stat st {};
    if (::fstat(r.fd(), &st) != 0) detail::fail_errno(".", errno, "cannot stat");
    return detail::to_entry(".", st);
  }
  auto parent = detail::open_parent(r, rel);
  struct stat st {};
  if (!detail::lstat_at(parent.dir.get(), parent.name, st, parent.shown)) {
    throw error(parent.shown, "no such file or directory", ENOENT);
  }
  return detail::to_entry(parent.name, st);
}

void walk(const root& r, std::string_view rel, const std::function<void(const walk_entry&)>& visit) {
  if (split(rel).empty()) {
    walk_dir(r.fd(), "", r.label(), visit);
    return;
  }
  auto parent = detail::open_parent(r, rel);
  walk_entry w;
  w.path = parent.shown;
  struct stat st {};
  if (!detail::lstat_at(parent.dir.get(), parent.name, st, w.path)) {
    throw error(w.path, "no such file or directory", ENOENT);
  }
  w.info = detail::to_entry(parent.name, st);
  w.dir_fd = parent.dir.get();
  if (w.info.type == entry_type::symlink) w.link_target = read_link_at(parent.dir.get(), parent.name, w.path);
  visit(w);
  if (w.info.type == entry_type::directory) {
    auto child = detail::open_dir_at(parent.dir.get(), parent.name, w.path, r.label());
    walk_dir(child.get(), w.path, r.label(), visit);
  }
}

copy_report copy_tree(const root& src, std::string_view src_rel, const root& dst, std::string_view dst_rel) {
  copier c{src, dst, {}};
  const bool src_is_root = split(src_rel).empty();
  const bool dst_is_root = split(dst_rel).empty();
  if (src_is_root && dst_is_root) {
    c.contents(src.fd(), "", dst.fd(), "");
    return c.report;
  }
  if (src_is_root) {
    auto d = detail::open_parent(dst, dst_rel);
    struct stat dst_st {};
    if (detail::lstat_at(d.dir.get(), d.name, dst_st, d.shown) && !S_ISDIR(dst_st.st_mode)) {
      detail::remove_at(d.dir.get(), d.name, d.shown);
    }
    if (::mkdirat(d.dir.get(), d.name.c_str(), 0700) != 0 && errno != EEXIST) {
      detail::fail_errno(d.shown, errno, "cannot create the directory");
    }
    auto into = detail::open_dir_at(d.dir.get(), d.name, d.shown, dst.label());
    c.contents(src.fd(), "", into.get(), d.shown);
    ++c.report.directories;
    return c.report;
  }
  auto s = detail::open_parent(src, src_rel);
  if (dst_is_root) {
    struct stat st {};
    if (!detail::lstat_at(s.dir.get(), s.name, st, s.shown)) throw error(s.shown, "no such file or directory", ENOENT);
    if (!S_ISDIR(st.st_mode)) throw error(s.shown, "not a directory; only a directory can be merged into a root");
    auto from = detail::open_dir_at(s.dir.get(), s.name, s.shown, src.label());
    c.contents(from.get(), s.shown, dst.fd(), "");
    ++c.report.directories;
    return c.report;
  }
  auto d = detail::open_parent(dst, dst_rel);
  c.object(s.dir.get(), s.name, s.shown, d.dir.get(), d.name, d.shown);
  return c.report;
}

}  // namespace r2r::safe_fs
