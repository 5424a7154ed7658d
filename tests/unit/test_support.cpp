// SPDX-License-Identifier: MIT
#include "test_support.hpp"

#include <sys/wait.h>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace r2r::test {

std::filesystem::path env_path(const char* name) {
  const std::string key = name;
  if (key == "R2R_FIXTURE_DIR") return R2R_TEST_FIXTURE_DIR;
  if (key == "R2R_PLUGIN_DIR") return R2R_TEST_PLUGIN_DIR;
  if (key == "R2R_SOURCE_DIR") return R2R_TEST_SOURCE_DIR;
  if (key == "R2R_BIN_DIR") return R2R_TEST_BIN_DIR;
  throw std::runtime_error("unknown test location " + key);
}

std::filesystem::path fixture_dir(const std::string& name) {
  return env_path("R2R_FIXTURE_DIR") / name;
}

std::filesystem::path fixture(const std::string& name) {
  for (const auto& entry : std::filesystem::directory_iterator(fixture_dir(name))) {
    if (entry.path().extension() == ".so") return entry.path();
  }
  throw std::runtime_error("fixture " + name + " is not built");
}

std::filesystem::path plugin_dir() {
  return env_path("R2R_PLUGIN_DIR");
}

temp_dir::temp_dir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() / ("r2r-test-" + std::to_string(rd()) + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

temp_dir::~temp_dir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path temp_dir::write(const std::string& relative, const std::string& content) const {
  const auto file = path_ / relative;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << content;
  return file;
}

process_result run_process(const std::string& command) {
  temp_dir scratch;
  const auto out = scratch.path() / "out";
  const auto err = scratch.path() / "err";
  // A developer's R2R_PLUGIN_PATH must not leak into what the tests see.
  const std::string full = "unset R2R_PLUGIN_PATH; " + command + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(full.c_str());
  process_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::stringstream o, e;
  o << std::ifstream(out).rdbuf();
  e << std::ifstream(err).rdbuf();
  r.out = o.str();
  r.err = e.str();
  return r;
}

}  // namespace r2r::test
