// SPDX-License-Identifier: MIT
// Test helpers: a private temporary directory holding a workspace and a canary directory outside it,
// and a snapshot of a tree (names, types, sizes, mtimes) to show that nothing outside changed.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace r2r::safe_fs::testing {

struct temp_tree {
  std::filesystem::path base;
  std::filesystem::path workspace;
  std::filesystem::path canary;

  temp_tree() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "r2r-safe-fs-XXXXXX").string();
    base = ::mkdtemp(tmpl.data());
    workspace = base / "workspace";
    canary = base / "canary";
    std::filesystem::create_directories(workspace);
    std::filesystem::create_directories(canary / "sub");
    put(canary / "secret", "do not read");
    put(canary / "sub" / "keep", "keep me");
  }
  ~temp_tree() {
    std::error_code ec;
    std::filesystem::remove_all(base, ec);
  }
  static void put(const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
  }
  static std::string get(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

/// path -> "type size mtime" of everything beneath `dir`, links not followed.
inline std::map<std::string, std::string> listing(const std::filesystem::path& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    struct stat st {};
    ::lstat(it->path().c_str(), &st);
    out[it->path().lexically_relative(dir).string()] = std::to_string(st.st_mode) + " " + std::to_string(st.st_size) +
                                                       " " + std::to_string(st.st_mtim.tv_sec) + "." +
                                                       std::to_string(st.st_mtim.tv_nsec);
  }
  return out;
}

}  // namespace r2r::safe_fs::testing
