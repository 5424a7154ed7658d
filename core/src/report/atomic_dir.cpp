// SPDX-License-Identifier: MIT
#include "atomic_dir.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace r2r::report::detail {
namespace {

core::result<void> io_error(const std::string& what, const std::filesystem::path& p, int err) {
  return core::fail(core::phase::io, what + " " + p.string() + ": " + std::strerror(err), "", p.string());
}

core::result<void> fsync_path(const std::filesystem::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open", p, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return io_error("cannot fsync", p, err);
  return {};
}

core::result<void> write_all(int fd, const char* data, std::size_t size, const std::filesystem::path& p) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error("cannot write", p, errno);
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace

staged_dir::staged_dir(std::filesystem::path target, std::filesystem::path tmp)
    : target_(std::move(target)), tmp_(std::move(tmp)) {}

staged_dir::staged_dir(staged_dir&& other) noexcept
    : target_(std::move(other.target_)), tmp_(std::exchange(other.tmp_, {})) {}

staged_dir::~staged_dir() {
  if (tmp_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(tmp_, ec);
}

core::result<staged_dir> staged_dir::create(const std::filesystem::path& target) {
  const auto abs = std::filesystem::absolute(target).lexically_normal();
  const auto clean = abs.has_filename() ? abs : abs.parent_path();
  if (!std::filesystem::is_directory(clean.parent_path()))
    return core::fail(core::phase::io,
                      "the parent of the output directory " + clean.string() + " does not exist; create it first", "",
                      clean.string());
  std::string pattern = clean.string() + ".tmp-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    const int err = errno;
    return tl::unexpected(io_error("cannot create a temporary directory beside", clean, err).error());
  }
  ::chmod(buf.data(), 0755);  // mkdtemp's 0700 would become the published directory's mode
  return staged_dir(clean, std::filesystem::path(buf.data()));
}

core::result<void> staged_dir::write(std::string_view name, std::string_view bytes) const {
  const auto p = tmp_ / name;
  if (p.parent_path() != tmp_) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) return io_error("cannot create", p.parent_path(), ec.value());
  }
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("cannot create", p, errno);
  auto w = write_all(fd, bytes.data(), bytes.size(), p);
  if (w && ::fsync(fd) != 0) w = io_error("cannot fsync", p, errno);
  ::close(fd);
  return w;
}

core::result<void> staged_dir::copy(std::string_view name, const std::filesystem::path& source) const {
  const int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return io_error("cannot read", source, errno);
  const auto p = tmp_ / name;
  const int out = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    return io_error("cannot create", p, err);
  }
  core::result<void> r;
  std::vector<char> buf(1 << 16);
  for (;;) {
    const ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r = io_error("cannot read", source, errno);
      break;
    }
    if (n == 0) break;
    r = write_all(out, buf.data(), static_cast<std::size_t>(n), p);
    if (!r) break;
  }
  if (r && ::fsync(out) != 0) r = io_error("cannot fsync", p, errno);
  ::close(in);
  ::close(out);
  return r;
}

core::result<void> staged_dir::publish() {
  std::vector<std::filesystem::path> subdirs;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(tmp_, ec), end; !ec && it != end; it.increment(ec))
    // symlink_status only: a link in the staged tree (a loop, one pointing outside) is never followed.
    if (std::error_code type_ec; it->symlink_status(type_ec).type() == std::filesystem::file_type::directory)
      subdirs.push_back(it->path());
  for (auto d = subdirs.rbegin(); d != subdirs.rend(); ++d)  // deepest first, then their parents
    if (auto s = fsync_path(*d, O_RDONLY | O_DIRECTORY); !s) return s;
  if (auto s = fsync_path(tmp_, O_RDONLY | O_DIRECTORY); !s) return s;
  const auto parent = target_.parent_path();
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    if (err != ENOTEMPTY && err != EEXIST) return io_error("cannot rename the staged directory into", target_, err);
    if (!std::filesystem::is_directory(target_) || std::filesystem::is_symlink(target_))
      return core::fail(core::phase::io,
                        target_.string() + " exists and is not a directory; remove it or choose another", "",
                        target_.string());
    // An earlier bundle: swap both names in one step, then remove the old one (now at tmp_).
    if (::renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) != 0)
      return io_error("cannot exchange the new directory with the existing", target_, errno);
  } else {
    tmp_.clear();
  }
  auto synced = fsync_path(parent, O_RDONLY | O_DIRECTORY);
  if (!tmp_.empty()) {
    std::error_code remove_ec;
    std::filesystem::remove_all(tmp_, remove_ec);
    tmp_.clear();
  }
  return synced;
}

}  // namespace r2r::report::detail
