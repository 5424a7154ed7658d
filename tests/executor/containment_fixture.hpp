// SPDX-License-Identifier: MIT
// Shared by the containment tests (issue 19): a canary directory outside the workspace, bound
// read-only into the sandbox where the sandbox allows it, a hidden canary that is not, and
// before/after listings (names, types, sizes, mtimes) of everything outside the workspace.
#pragma once

#include "executor_fixture.hpp"

#include <r2r/executor/executor.hpp>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace r2r::test {

/// path -> "mode size mtime" of everything beneath `dir` (links not followed), minus `skip`.
inline std::map<std::string, std::string> tree_listing(const std::filesystem::path& dir,
                                                       const std::filesystem::path& skip = {}) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    if (!skip.empty() && it->path() == skip) {
      it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    ::lstat(it->path().c_str(), &st);
    out[it->path().lexically_relative(dir).string()] = std::to_string(st.st_mode) + " " + std::to_string(st.st_size) +
                                                       " " + std::to_string(st.st_mtim.tv_sec) + "." +
                                                       std::to_string(st.st_mtim.tv_nsec);
  }
  return out;
}

class ContainmentFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string tag =
        std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    canary = std::filesystem::current_path() / ("containment-canary-" + tag);
    hidden = dir.path() / "hidden";
    etc_probe = "r2r-probe-" + std::to_string(::getpid()) + ".conf";
    std::filesystem::remove_all(canary);
    std::filesystem::create_directories(canary / "sub");
    std::filesystem::create_directories(hidden);
    std::ofstream(canary / "secret") << "do not read\n";
    std::ofstream(canary / "sub" / "keep") << "keep\n";
    std::ofstream(hidden / "secret") << "hidden secret\n";
    canary_before = tree_listing(canary);
    hidden_before = tree_listing(hidden);
    dir_before = tree_listing(dir.path(), run_dir());
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(canary, ec);
    if (std::filesystem::exists(std::filesystem::path("/etc") / etc_probe)) {
      std::filesystem::remove(std::filesystem::path("/etc") / etc_probe, ec);  // leave the host clean
      ADD_FAILURE() << "/etc/" << etc_probe << " was written on the host";
    }
  }

  std::filesystem::path run_dir() const { return dir.path() / "run"; }

  /// Everything outside the workspace is as it was: the canaries, the test directory around the
  /// run directory, the run directory's own entries (no probe), /etc and /.
  void expect_nothing_outside_changed() const {
    EXPECT_EQ(tree_listing(canary), canary_before);
    EXPECT_EQ(tree_listing(hidden), hidden_before);
    auto now = tree_listing(dir.path(), run_dir());
    now.erase("pipeline.json");
    auto before = dir_before;
    before.erase("pipeline.json");
    EXPECT_EQ(now, before);
    for (const auto& entry : std::filesystem::directory_iterator(run_dir())) {
      EXPECT_EQ(entry.path().filename().string().find("probe"), std::string::npos) << entry.path();
    }
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path("/etc") / etc_probe));
    EXPECT_FALSE(std::filesystem::exists("/probe.conf"));
    EXPECT_FALSE(std::filesystem::exists(canary / "probe.conf"));
    EXPECT_FALSE(std::filesystem::exists(canary / "probe-y.conf"));
  }

  static std::string q(const std::string& s) {
    std::string out = "'";
    for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
  }
  static nlohmann::json run_step(const std::string& command) { return {{"type", "run"}, {"command", command}}; }
  static nlohmann::json write_step(const std::string& path, const std::string& content) {
    return {{"type", "write_file"}, {"path", path}, {"content", content}};
  }
  static std::vector<nlohmann::json> default_guards() {
    return {guard_stage("cpu-fallback", "r2r.guard.cpu-fallback"),
            guard_stage("accelerator-swap", "r2r.guard.accelerator-swap"),
            guard_stage("success-claim", "r2r.guard.success-claim")};
  }
  static nlohmann::json default_ro_binds() {
    return nlohmann::json::array({"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc/alternatives",
                                  "/etc/ld.so.cache", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf"});
  }

  temp_dir dir;
  std::filesystem::path canary;  // outside the workspace, visible (read-only) in the sandbox
  std::filesystem::path hidden;  // outside the workspace, not visible in the sandbox
  std::string etc_probe;
  std::map<std::string, std::string> canary_before, hidden_before, dir_before;
};

}  // namespace r2r::test
