// SPDX-License-Identifier: MIT
// A directory written in full beside its final name and then renamed into place (core-internal:
// the bundle writer, and `repo2rocm plan` / `port` for their --out directories). Files are written with write(2) and
// fsync(2); publish() fsyncs the directory, renames it over the target (exchanging atomically with an existing one) and
// fsyncs the parent. OWNERSHIP: the object owns the temporary directory and removes it unless publish() succeeded.
#pragma once

#include <r2r/core/error.hpp>

#include <filesystem>
#include <string_view>

namespace r2r::report::detail {

class staged_dir {
 public:
  /// Creates `<target>.tmp-XXXXXX` in target's parent directory (which must exist).
  static core::result<staged_dir> create(const std::filesystem::path& target);
  staged_dir(staged_dir&& other) noexcept;
  staged_dir& operator=(staged_dir&&) = delete;
  staged_dir(const staged_dir&) = delete;
  ~staged_dir();

  const std::filesystem::path& path() const noexcept { return tmp_; }

  /// Writes `name` (a relative path; missing parent directories are made) in the staged directory
  /// with `bytes` and fsyncs it.
  core::result<void> write(std::string_view name, std::string_view bytes) const;
  /// Copies `source` to `name` and fsyncs it.
  core::result<void> copy(std::string_view name, const std::filesystem::path& source) const;

  /// Fsyncs every subdirectory and the staged directory, then makes it the target. Afterwards the
  /// object owns nothing.
  core::result<void> publish();

 private:
  staged_dir(std::filesystem::path target, std::filesystem::path tmp);
  std::filesystem::path target_;
  std::filesystem::path tmp_;
};

}  // namespace r2r::report::detail
