// SPDX-License-Identifier: MIT
// A private directory under the system temporary directory (mkdtemp, mode 0700), removed with
// everything in it when the object is destroyed. OWNERSHIP: the object owns the directory.
#pragma once

#include <filesystem>
#include <string>

namespace r2r::plugins::converter {

class scratch_dir {
 public:
  /// Throws sdk::failed when the directory cannot be created. `prefix` names it for humans.
  explicit scratch_dir(const std::string& prefix);
  ~scratch_dir();
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace r2r::plugins::converter
