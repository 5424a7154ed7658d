// SPDX-License-Identifier: MIT
// Paths and temporary directories for tests. Build locations are compiled in by
// tests/CMakeLists.txt, so the test binaries also run by hand.
#pragma once

#include <filesystem>
#include <string>

namespace r2r::test {

/// A build location: R2R_FIXTURE_DIR, R2R_PLUGIN_DIR, R2R_SOURCE_DIR or R2R_BIN_DIR.
std::filesystem::path env_path(const char* name);
/// The fixture library <name> built by tests/CMakeLists.txt (the only .so in its directory).
std::filesystem::path fixture(const std::string& name);
/// Directory of a fixture (to put on a plugin path).
std::filesystem::path fixture_dir(const std::string& name);
/// The in-tree plugin directory of the build.
std::filesystem::path plugin_dir();

/// A fresh directory removed with everything in it when the object goes away.
class temp_dir {
 public:
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::filesystem::path& path() const noexcept { return path_; }
  std::filesystem::path write(const std::string& relative, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

/// Runs a command through /bin/sh; returns exit status, stdout and stderr.
struct process_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};
process_result run_process(const std::string& command);

}  // namespace r2r::test
