// SPDX-License-Identifier: MIT
#include <r2r/support/tar_archive.hpp>

#include "tar_extractor.hpp"

#include <r2r/support/safe_fs.hpp>

#include <archive.h>
#include <archive_entry.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace r2r::tarball {
namespace fs = std::filesystem;
namespace {

using writer_ptr = std::unique_ptr<archive, decltype(&archive_write_free)>;
using reader_ptr = std::unique_ptr<archive, decltype(&archive_read_free)>;
using entry_ptr = std::unique_ptr<archive_entry, decltype(&archive_entry_free)>;

[[noreturn]] void fail(archive* a, const std::string& what) {
  const char* why = a != nullptr ? archive_error_string(a) : nullptr;
  throw std::runtime_error(what + ": " + (why != nullptr ? why : "unknown libarchive error"));
}

writer_ptr open_writer(const fs::path& tar_file) {
  writer_ptr w(archive_write_new(), &archive_write_free);
  if (!w) throw std::runtime_error("libarchive: out of memory");
  archive_write_set_format_pax_restricted(w.get());
  if (archive_write_open_filename(w.get(), tar_file.c_str()) != ARCHIVE_OK) {
    fail(w.get(), "cannot create " + tar_file.string());
  }
  return w;
}

// Adds one object met by the walk (never following a link) under `name`. A regular file is
// opened O_NOFOLLOW|O_NONBLOCK beneath its directory fd and its size taken from that open file, so
// swapping it for a link or a FIFO between listing and reading cannot redirect or block the read.
void add_entry(archive* w, const safe_fs::walk_entry& we, const std::string& name) {
  entry_ptr entry(archive_entry_new(), &archive_entry_free);
  archive_entry_set_pathname(entry.get(), name.c_str());
  archive_entry_set_perm(entry.get(), we.info.mode & 07777);
  archive_entry_set_uid(entry.get(), we.info.uid);
  archive_entry_set_gid(entry.get(), we.info.gid);
  archive_entry_set_mtime(entry.get(), we.info.mtime_s, we.info.mtime_ns);
  safe_fs::unique_fd in;
  switch (we.info.type) {
    case safe_fs::entry_type::directory:
      archive_entry_set_filetype(entry.get(), AE_IFDIR);
      break;
    case safe_fs::entry_type::symlink:
      archive_entry_set_filetype(entry.get(), AE_IFLNK);
      archive_entry_set_symlink(entry.get(), we.link_target.c_str());
      break;
    case safe_fs::entry_type::fifo:
      archive_entry_set_filetype(entry.get(), AE_IFIFO);  // header only: a FIFO is never opened
      break;
    case safe_fs::entry_type::regular: {
      in = safe_fs::open_regular_at(we.dir_fd, we.info.name, we.path);
      struct stat st {};
      if (::fstat(in.get(), &st) != 0) throw std::runtime_error("cannot stat " + we.path);
      archive_entry_set_filetype(entry.get(), AE_IFREG);
      archive_entry_set_size(entry.get(), st.st_size);
      break;
    }
    default:
      return;  // sockets and devices are not archived: they cannot be restored into a workspace
  }
  // ARCHIVE_WARN: a name that is not valid in the locale's charset, stored as raw bytes (pax
  // hdrcharset=BINARY) and read back as such.
  if (archive_write_header(w, entry.get()) < ARCHIVE_WARN) fail(w, "cannot archive " + we.path);
  if (!in) return;
  la_int64_t left = archive_entry_size(entry.get());
  char buffer[64 * 1024];
  while (left > 0) {
    const ssize_t n = ::read(in.get(), buffer, static_cast<std::size_t>(std::min<la_int64_t>(left, sizeof buffer)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("cannot read " + we.path + ": " + std::strerror(errno));
    if (n == 0) break;  // shrank while archived: libarchive pads the entry
    if (archive_write_data(w, buffer, static_cast<std::size_t>(n)) < 0) fail(w, "cannot archive " + we.path);
    left -= n;
  }
}

// A member may only name a path below the extraction root.
void check_member_name(const std::string& name, const fs::path& tar_file) {
  const fs::path p(name);
  bool escapes = p.is_absolute() || name.empty();
  for (const auto& part : p) escapes = escapes || part == "..";
  if (escapes)
    throw std::runtime_error("refusing archive member '" + name + "' of " + tar_file.string() +
                             ": absolute or with '..'");
}

void finish(archive* w, const fs::path& tar_file) {
  if (archive_write_close(w) != ARCHIVE_OK) fail(w, "cannot finish " + tar_file.string());
}

}  // namespace

void write_tar(const fs::path& source, const fs::path& tar_file, const std::string& arcname) {
  std::error_code ec;
  const auto status = fs::symlink_status(source, ec);
  if (ec || !fs::exists(status)) throw std::runtime_error("no such file or directory: " + source.string());
  const auto join = [&](const std::string& rel) { return arcname.empty() ? rel : arcname + "/" + rel; };
  try {
    if (fs::is_directory(status)) {
      const auto root = safe_fs::root::open(source, "directory being archived");
      auto w = open_writer(tar_file);
      if (!arcname.empty()) {
        safe_fs::walk_entry top;
        top.path = ".";
        top.info = safe_fs::stat(root, "");
        top.info.type = safe_fs::entry_type::directory;
        add_entry(w.get(), top, arcname);
      }
      safe_fs::walk(root, "", [&](const safe_fs::walk_entry& we) { add_entry(w.get(), we, join(we.path)); });
      finish(w.get(), tar_file);
    } else {
      const auto root = safe_fs::root::open(source.parent_path().empty() ? fs::path(".") : source.parent_path(),
                                            "directory being archived");
      auto w = open_writer(tar_file);
      const std::string base = source.filename().string();
      safe_fs::walk(root, base, [&](const safe_fs::walk_entry& we) {
        add_entry(w.get(), we, arcname.empty() ? we.path : arcname);
      });
      finish(w.get(), tar_file);
    }
  } catch (const safe_fs::error& e) {
    throw std::runtime_error(std::string("cannot archive ") + source.string() + ": " + e.what());
  }
}

void write_tar_of_files(const std::map<std::string, std::string>& files, const fs::path& tar_file) {
  auto w = open_writer(tar_file);
  for (const auto& [name, content] : files) {
    entry_ptr entry(archive_entry_new(), &archive_entry_free);
    archive_entry_set_pathname(entry.get(), name.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(content.size()));
    if (archive_write_header(w.get(), entry.get()) != ARCHIVE_OK) fail(w.get(), "cannot archive " + name);
    if (!content.empty() && archive_write_data(w.get(), content.data(), content.size()) < 0) {
      fail(w.get(), "cannot archive " + name);
    }
  }
  finish(w.get(), tar_file);
}

std::size_t extract_tar(const fs::path& tar_file, const fs::path& destination, const std::string& label) {
  reader_ptr r(archive_read_new(), &archive_read_free);
  archive_read_support_format_tar(r.get());
  archive_read_support_format_gnutar(r.get());
  if (archive_read_open_filename(r.get(), tar_file.c_str(), 64 * 1024) != ARCHIVE_OK) {
    fail(r.get(), "cannot open " + tar_file.string());
  }
  try {
    const auto root = safe_fs::root::open(destination, label);
    tar_extractor out(root);
    std::size_t count = 0;
    archive_entry* entry = nullptr;
    int rc;
    while ((rc = archive_read_next_header(r.get(), &entry)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
      const char* raw = archive_entry_pathname(entry);
      if (raw == nullptr) fail(r.get(), "an unreadable member name in " + tar_file.string());
      const std::string name = raw;
      check_member_name(name, tar_file);
      out.entry(r.get(), entry, name, tar_file);
      ++count;
    }
    if (rc != ARCHIVE_EOF) fail(r.get(), "corrupt archive " + tar_file.string());
    out.finish();
    return count;
  } catch (const safe_fs::error& e) {
    throw std::runtime_error("cannot extract " + tar_file.string() + " into " + destination.string() + ": " + e.what());
  }
}

}  // namespace r2r::tarball
