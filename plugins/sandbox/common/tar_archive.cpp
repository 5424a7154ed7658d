// SPDX-License-Identifier: MIT
#include "tar_archive.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <sys/stat.h>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace r2r::sandbox_common {
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

// Adds one file system object (not recursing) under `name`, reading it through a disk reader.
void add_entry(archive* w, archive* disk, const fs::path& path, const std::string& name) {
  entry_ptr entry(archive_entry_new(), &archive_entry_free);
  archive_entry_copy_sourcepath(entry.get(), path.c_str());
  archive_entry_copy_pathname(entry.get(), path.c_str());
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw std::runtime_error("cannot stat " + path.string());
  if (archive_read_disk_entry_from_file(disk, entry.get(), -1, &st) != ARCHIVE_OK) {
    fail(disk, "cannot read " + path.string());
  }
  archive_entry_set_pathname(entry.get(), name.c_str());
  if (archive_write_header(w, entry.get()) != ARCHIVE_OK) fail(w, "cannot archive " + path.string());
  if (archive_entry_filetype(entry.get()) == AE_IFREG && archive_entry_size(entry.get()) > 0) {
    std::unique_ptr<FILE, decltype(&fclose)> in(fopen(path.c_str(), "rb"), &fclose);
    if (!in) throw std::runtime_error("cannot open " + path.string());
    char buffer[64 * 1024];
    std::size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, in.get())) > 0) {
      if (archive_write_data(w, buffer, n) < 0) fail(w, "cannot archive " + path.string());
    }
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
  auto w = open_writer(tar_file);
  reader_ptr disk(archive_read_disk_new(), &archive_read_free);
  archive_read_disk_set_standard_lookup(disk.get());
  archive_read_disk_set_symlink_physical(disk.get());  // links are archived as links, never followed
  const auto join = [&](const std::string& rel) { return arcname.empty() ? rel : arcname + "/" + rel; };
  if (!arcname.empty()) add_entry(w.get(), disk.get(), source, arcname);
  if (fs::is_directory(status)) {
    for (auto it = fs::recursive_directory_iterator(source, fs::directory_options::none, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      add_entry(w.get(), disk.get(), it->path(), join(it->path().lexically_relative(source).generic_string()));
    }
    if (ec) throw std::runtime_error("cannot list " + source.string() + ": " + ec.message());
  } else if (arcname.empty()) {
    add_entry(w.get(), disk.get(), source, source.filename().string());
  }
  finish(w.get(), tar_file);
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

std::size_t extract_tar(const fs::path& tar_file, const fs::path& destination) {
  reader_ptr r(archive_read_new(), &archive_read_free);
  archive_read_support_format_tar(r.get());
  archive_read_support_format_gnutar(r.get());
  if (archive_read_open_filename(r.get(), tar_file.c_str(), 64 * 1024) != ARCHIVE_OK) {
    fail(r.get(), "cannot open " + tar_file.string());
  }
  writer_ptr disk(archive_write_disk_new(), &archive_write_free);
  archive_write_disk_set_options(disk.get(), ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
                                                 ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS);
  // Entry names are checked here (relative, no `..`) and joined to the canonical destination, so
  // the absolute result is ours; libarchive still refuses to write through any symlink on the way.
  const fs::path root = fs::canonical(destination);
  std::size_t count = 0;
  archive_entry* entry = nullptr;
  int rc;
  while ((rc = archive_read_next_header(r.get(), &entry)) == ARCHIVE_OK) {
    const std::string name = archive_entry_pathname(entry);
    check_member_name(name, tar_file);
    archive_entry_copy_pathname(entry, (root / name).c_str());
    if (const char* link = archive_entry_hardlink(entry); link != nullptr) {
      check_member_name(link, tar_file);
      archive_entry_copy_hardlink(entry, (root / link).c_str());
    }
    if (archive_write_header(disk.get(), entry) != ARCHIVE_OK) fail(disk.get(), "cannot extract " + name);
    const void* block;
    size_t size;
    la_int64_t offset;
    int d;
    while ((d = archive_read_data_block(r.get(), &block, &size, &offset)) == ARCHIVE_OK) {
      if (archive_write_data_block(disk.get(), block, size, offset) != ARCHIVE_OK) {
        fail(disk.get(), "cannot write " + name);
      }
    }
    if (d != ARCHIVE_EOF) fail(r.get(), "cannot read " + name + " from " + tar_file.string());
    if (archive_write_finish_entry(disk.get()) != ARCHIVE_OK) fail(disk.get(), "cannot finish " + name);
    ++count;
  }
  if (rc != ARCHIVE_EOF) fail(r.get(), "corrupt archive " + tar_file.string());
  return count;
}

}  // namespace r2r::sandbox_common
