// SPDX-License-Identifier: MIT
#include <r2r/convert/scratch_dir.hpp>
#include <r2r/sdk/error.hpp>

#include <stdlib.h>

#include <cerrno>
#include <cstring>

namespace r2r::plugins::converter {

scratch_dir::scratch_dir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw sdk::failed("cannot create a temporary directory " + pattern + ": " + std::strerror(errno) +
                      "; check TMPDIR and free space");
  }
  path_ = pattern;
}

scratch_dir::~scratch_dir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace r2r::plugins::converter
