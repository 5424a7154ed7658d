// SPDX-License-Identifier: MIT
// Writes the members of a tar archive beneath a root through safe_fs: no member is written through
// a link (links in the archive are created as links and never followed by later members), files
// are new inodes, hardlink members become independent copies of a member already extracted under
// the root, FIFOs are recreated, devices and sockets are skipped. Directory modes and times are
// applied by finish(), deepest first, so a read-only directory does not block its own members.
// OWNERSHIP: borrows the root, which must outlive the extractor. THREADING: one thread.
#pragma once

#include <r2r/support/safe_fs.hpp>

#include <archive.h>
#include <archive_entry.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace r2r::tarball {

class tar_extractor {
 public:
  explicit tar_extractor(const safe_fs::root& root) : root_(root) {}
  /// Extracts the member `e` (its header just read from `r`) named `name`. Throws safe_fs::error.
  void entry(archive* r, archive_entry* e, const std::string& name, const std::filesystem::path& tar_file);
  /// Applies the modes and times of the directories extracted.
  void finish();
  /// Members that were not extracted (devices, sockets), as "name: why".
  const std::vector<std::string>& skipped() const noexcept { return skipped_; }

 private:
  void extract(archive* r, archive_entry* e, const std::string& name, const std::filesystem::path& tar_file);
  struct dir_meta {
    std::string rel;
    mode_t mode;
    std::int64_t mtime_s;
    long mtime_ns;
  };
  const safe_fs::root& root_;
  std::vector<dir_meta> dirs_;
  std::vector<std::string> skipped_;
};

}  // namespace r2r::tarball
