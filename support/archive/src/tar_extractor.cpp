// SPDX-License-Identifier: MIT
#include "tar_extractor.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace r2r::tarball {
namespace {

std::string joined(const std::vector<std::string>& parts, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += (i == 0 ? "" : "/") + parts[i];
  return out;
}

}  // namespace

void tar_extractor::entry(archive* r, archive_entry* e, const std::string& name,
                          const std::filesystem::path& tar_file) {
  try {
    extract(r, e, name, tar_file);
  } catch (const safe_fs::error& err) {
    if (err.path() == name) throw;
    throw safe_fs::error(name, err.path() + ": " + err.reason(), err.code());  // name the member first
  }
}

void tar_extractor::extract(archive* r, archive_entry* e, const std::string& name,
                            const std::filesystem::path& tar_file) {
  const auto parts = safe_fs::split(name);
  const auto type = archive_entry_filetype(e);
  const mode_t perm = archive_entry_perm(e) & 07777;
  if (parts.empty()) {
    if (type == AE_IFDIR) return;  // "./": the root itself
    throw safe_fs::error(name, "an archive member that names the extraction root itself");
  }
  const std::string rel = joined(parts, parts.size());
  const std::string parent = joined(parts, parts.size() - 1);
  if (!parent.empty()) safe_fs::make_dirs(root_, parent);
  if (const char* target = archive_entry_hardlink(e); target != nullptr) {
    // A hardlink member: an independent copy of a member already beneath the root.
    safe_fs::copy_tree(root_, target, root_, rel);
    return;
  }
  switch (type) {
    case AE_IFDIR:
      safe_fs::make_dirs(root_, rel, 0700);
      dirs_.push_back({rel, perm, archive_entry_mtime(e), archive_entry_mtime_nsec(e)});
      return;
    case AE_IFREG: {
      safe_fs::new_file f(root_, rel, perm);
      char buffer[64 * 1024];
      la_ssize_t n;
      while ((n = archive_read_data(r, buffer, sizeof buffer)) > 0) f.write(buffer, static_cast<std::size_t>(n));
      if (n < 0) {
        const char* why = archive_error_string(r);
        throw std::runtime_error("cannot read " + name + " from " + tar_file.string() + ": " +
                                 (why != nullptr ? why : "unknown libarchive error"));
      }
      f.set_mtime(archive_entry_mtime(e), archive_entry_mtime_nsec(e));
      f.commit();
      return;
    }
    case AE_IFLNK: {
      const char* target = archive_entry_symlink(e);
      safe_fs::make_symlink(root_, rel, target != nullptr ? target : "");
      return;
    }
    case AE_IFIFO: {
      auto dir = safe_fs::open_dir(root_, parent);
      safe_fs::remove_tree(root_, rel);
      if (::mkfifoat(dir.get(), parts.back().c_str(), perm & 0777) != 0) {
        throw safe_fs::error(rel, std::string("cannot create the FIFO: ") + std::strerror(errno), errno);
      }
      return;
    }
    default:
      skipped_.push_back(rel + ": a device or socket; not extracted");
      return;
  }
}

void tar_extractor::finish() {
  for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) {
    auto fd = safe_fs::open_dir(root_, it->rel);
    ::fchmod(fd.get(), it->mode);
    const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(it->mtime_s), it->mtime_ns}};
    ::futimens(fd.get(), times);
  }
}

}  // namespace r2r::tarball
