// SPDX-License-Identifier: MIT
// Issue 19, attack first: a hostile repository (hostile_repo.hpp) through `repo2rocm port`,
// `repo2rocm plan` and `repo2rocm run` (local sandbox, no container engine) must leave everything
// outside the output directory as it was (before/after listings of the output directory's
// surroundings and of the canary directory the links point at), keep links as links, and say
// what it left out. The honest parts of the same repository (a kernel, a link inside) still work.
#include "../plan/fixture_repos.hpp"
#include "../run/run_fixture.hpp"
#include "hostile_repo.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <fstream>

namespace {

using nlohmann::json;
using r2r::test::read_text;
using r2r::test::run_process;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

std::string q(const fs::path& p) {
  return "'" + p.string() + "'";
}

std::string exe() {
  return (r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string() + " --plugin-path " + q(r2r::test::plugin_dir());
}

/// T/src/p/q/repo (the hostile repository), T/canary (what its links point at), T/o/a/b (output).
/// Relative paths that climb out of T/o/a/b/tree land in T/canary.
class Contain : public ::testing::Test {
 protected:
  void SetUp() override {
    r2r::test::make_canary(canary);
    sha = r2r::test::make_hostile_repo(repo, canary);
    fs::create_directories(out.parent_path());
  }
  // std::filesystem::remove_all cannot remove thousands of nested directories (path too long).
  void TearDown() override { run_process("rm -rf " + q(tmp.path() / "T")); }
  /// Everything in T but the output and the source; the output's parent itself is left out (its
  /// mtime changes when the output appears in it), its other entries are not.
  std::map<std::string, std::string> outside() const {
    auto l = r2r::test::listing(top, {out, repo});
    l.erase(out.parent_path().lexically_relative(top).string());
    return l;
  }
  std::map<std::string, std::string> source() const { return r2r::test::listing(repo, {}, 16); }
  void expect_nothing_outside_changed(const std::map<std::string, std::string>& before_outside,
                                      const std::map<std::string, std::string>& before_source) const {
    EXPECT_EQ(r2r::test::listing_diff(before_outside, outside()), "") << "written outside the output directory";
    EXPECT_EQ(r2r::test::listing_diff(before_source, source()), "") << "the source was written";
    EXPECT_THAT(read_text(canary / "secret.cu"), HasSubstr(r2r::test::canary_secret));
  }
  void expect_no_secret_in(const fs::path& dir) const {
    for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
      if (it.depth() > 40) it.disable_recursion_pending();
      if (it->is_symlink() || !it->is_regular_file()) continue;
      const fs::path name = it->path().filename();
      if (name == "hard.cu" || name == "repo.tar") continue;  // hard.cu is a file of the repository
      const std::string text = read_text(it->path());
      EXPECT_THAT(text, Not(HasSubstr(r2r::test::canary_package))) << it->path();
      EXPECT_THAT(text, Not(HasSubstr(r2r::test::canary_secret))) << it->path();
    }
  }

  r2r::test::temp_dir tmp;
  fs::path top = tmp.path() / "T";
  fs::path repo = top / "src/p/q/repo";
  fs::path canary = top / "canary";
  fs::path out = top / "o/a/b";
  std::string sha;
};

TEST_F(Contain, PortOfAHostileDirectoryWritesOnlyIntoItsOutputAndKeepsLinksAsLinks) {
  const auto missing = r2r::test::add_uncommittable_entries(repo, canary);
  const auto before_outside = outside();
  const auto before_source = source();
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_process("timeout 300 " + exe() + " port " + q(repo) + " --out " + q(out) + " --json");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect_nothing_outside_changed(before_outside, before_source);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_LT(seconds, 120) << "a sparse file of several GB must not be read or copied";

  const fs::path tree = out / "tree";
  ASSERT_TRUE(fs::is_symlink(tree / "csrc_link.cu"));
  EXPECT_EQ(fs::read_symlink(tree / "csrc_link.cu"), canary / "secret.cu") << "the link text is kept verbatim";
  EXPECT_TRUE(fs::is_symlink(tree / "passwd_dir"));
  EXPECT_TRUE(fs::is_symlink(tree / "kernels/rel_escape.cu"));
  EXPECT_TRUE(fs::is_symlink(tree / "dangling.cu"));
  EXPECT_TRUE(fs::is_symlink(tree / "loop_a.cu"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(tree / "pipe.cu"))) << "a FIFO is not copied";
  EXPECT_FALSE(fs::exists(fs::symlink_status(tree / "dev_null"))) << "a device is not copied";
  EXPECT_FALSE(fs::exists(fs::symlink_status(tree / "huge.cu"))) << "a file of several GB is not copied";
  EXPECT_FALSE(fs::exists(fs::symlink_status(tree / "vendor/.git"))) << "a .git file is not copied";
  EXPECT_TRUE(fs::is_regular_file(tree / "vendor/lib.cu"));
  struct stat hard {
  }, original{};
  ASSERT_EQ(::stat((tree / "hard.cu").c_str(), &hard), 0);
  ASSERT_EQ(::stat((canary / "hardlinked.cu").c_str(), &original), 0);
  EXPECT_NE(hard.st_ino, original.st_ino) << "a hardlinked file is copied as a new file";
  EXPECT_EQ(read_text(canary / "hardlinked.cu"), std::string("// hardlink canary ") + r2r::test::canary_secret + "\n");

  // The honest kernel and the names that are only odd were converted or copied.
  EXPECT_THAT(read_text(tree / "kernels/ok.cu"), HasSubstr("hip"));
  EXPECT_TRUE(fs::is_symlink(tree / "kernels/inside_link.cu"));
  EXPECT_EQ(fs::read_symlink(tree / "kernels/inside_link.cu"), "ok.cu");
  EXPECT_TRUE(fs::is_regular_file(tree / "-dash.cu"));
  EXPECT_TRUE(fs::is_regular_file(tree / "new\nline.cu"));
  EXPECT_TRUE(fs::is_regular_file(tree / "caf\xe9.cu"));

  // convert.json says what was kept as a link and what was left out, and why.
  const json report = json::parse(read_text(out / "convert.json"));
  ASSERT_TRUE(report.contains("tree")) << report.dump(2);
  const std::string entries = report["tree"].dump();
  EXPECT_THAT(entries, HasSubstr("\"csrc_link.cu\""));
  EXPECT_THAT(entries, HasSubstr("outside the repository"));
  EXPECT_THAT(entries, HasSubstr("\"pipe.cu\""));
  EXPECT_THAT(entries, HasSubstr("\"huge.cu\""));
  EXPECT_THAT(entries, HasSubstr("\"vendor/.git\""));
  EXPECT_THAT(entries, HasSubstr("deeper than"));
  EXPECT_THAT(entries, HasSubstr("new\\\\nline.cu"));
  EXPECT_THAT(entries, HasSubstr("caf\\\\xe9.cu"));
  if (missing.empty()) {
    EXPECT_THAT(entries, HasSubstr("\"dev_null\""));
  }
  // A name with a newline never reaches patch.diff, where it could forge a header.
  EXPECT_THAT(read_text(out / "patch.diff"), Not(HasSubstr("new\nline.cu")));
  expect_no_secret_in(out);
}

TEST_F(Contain, PlanOfAHostileRepositoryReadsNothingOutsideAndReportsTheLinks) {
  const auto before_outside = outside();
  const auto before_source = source();
  const fs::path aux = tmp.path() / "aux";
  const auto r = run_process("timeout 300 " + exe() + " plan " + q(repo) + " --out " + q(out) + " --cache-dir " +
                             q(aux / "cache") + " --state-dir " + q(aux / "state") + " --json");
  expect_nothing_outside_changed(before_outside, before_source);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json fp = json::parse(read_text(out / "fingerprint.json"));
  EXPECT_THAT(fp.dump(), Not(HasSubstr(r2r::test::canary_package))) << "a requirements include was read outside";
  ASSERT_TRUE(fp.contains("tree_entries")) << fp.dump(2);
  const std::string entries = fp["tree_entries"].dump();
  EXPECT_THAT(entries, HasSubstr("\"file\":\"csrc_link.cu\""));
  EXPECT_THAT(entries, HasSubstr("outside the repository"));
  EXPECT_THAT(entries, HasSubstr("\"file\":\"kernels/inside_link.cu\""));
  EXPECT_THAT(fp["problems"].dump(), HasSubstr("reqs_link.txt")) << "the -r through a link out is a problem";
  // The honest kernel was fingerprinted; the link inside is read as its target.
  EXPECT_THAT(fp["kernels"].dump(), HasSubstr("kernels/ok.cu"));
  // repo.tar stores links as links, and no member leaves the archive's root.
  const auto tar = run_process("tar -tvf " + q(out / "repo.tar"));
  ASSERT_EQ(tar.exit_code, 0) << tar.err;
  EXPECT_THAT(tar.out, HasSubstr("csrc_link.cu -> " + (canary / "secret.cu").string()));
  EXPECT_THAT(tar.out, HasSubstr("passwd_dir -> " + canary.string()));
  EXPECT_THAT(tar.out, Not(HasSubstr(" passwd_dir/"))) << "nothing was archived through a link";
  EXPECT_THAT(tar.out, Not(HasSubstr("pipe.cu")));
  expect_no_secret_in(out);

  // The clone cache: the next commit turns the link passwd_dir into a directory with a file; the
  // checkout over the cached one must replace the link, not write through it into the canary.
  fs::remove(repo / "passwd_dir");
  r2r::test::write_file(repo, "passwd_dir/probe.conf", "written through the link?\n");
  r2r::test::git_commit_all(repo, "the link becomes a directory");
  const auto before_second = outside();
  const auto again = run_process("timeout 300 " + exe() + " plan " + q(repo) + " --out " + q(out) + " --cache-dir " +
                                 q(aux / "cache") + " --state-dir " + q(aux / "state") + " --json");
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(r2r::test::listing_diff(before_second, outside()), "") << "the cache checkout wrote through a link";
  EXPECT_FALSE(fs::exists(canary / "probe.conf"));
}

TEST_F(Contain, PlanRefusesAGitFileThatNamesARepositoryElsewhere) {
  const fs::path decoy = top / "src/decoy";
  fs::create_directories(decoy);
  std::ofstream(decoy / ".git") << "gitdir: " << (canary / "fakegit/.git").string() << "\n";
  std::ofstream(decoy / "train.py") << "import torch\n";
  const fs::path aux = tmp.path() / "aux";
  const auto r = run_process("timeout 120 " + exe() + " plan " + q(decoy) + " --out " + q(out) + " --cache-dir " +
                             q(aux / "cache") + " --state-dir " + q(aux / "state"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr(".git is a file"));
  EXPECT_FALSE(fs::exists(out / "repo.tar"));

  // The honest case: a linked worktree (its .git file points back and forth) is planned.
  const fs::path worktree = top / "src/worktree";
  r2r::test::git(repo, "worktree add -q --detach " + q(worktree));
  const auto ok = run_process("timeout 120 " + exe() + " plan " + q(worktree) + " --out " + q(top / "o/wt") +
                              " --cache-dir " + q(aux / "cache") + " --state-dir " + q(aux / "state"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

TEST_F(Contain, RunOfAHostileRepositoryStaysInsideTheRunDirectory) {
  const auto before_outside = outside();
  const auto before_source = source();
  const fs::path aux = tmp.path() / "aux";
  fs::create_directories(aux);
  const auto r = run_process(r2r::test::run_command(aux, q(repo) + " --json --run-dir " + q(out)));
  expect_nothing_outside_changed(before_outside, before_source);
  EXPECT_LT(r.exit_code, 124) << "run crashed or hung: " << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"stage\":\"port\"")) << r.out << r.err;
  EXPECT_TRUE(fs::is_symlink(out / "source/csrc_link.cu")) << r.out << r.err;
  EXPECT_TRUE(fs::is_symlink(out / "workspace/passwd_dir")) << r.out << r.err;
  // What the host wrote (the sandbox's own reads are the sandbox's business: docs/sandboxes.md).
  for (const char* f : {"fingerprint.json", "plan.json", "Dockerfile", "convert.json", "patch.diff"}) {
    if (!fs::exists(out / f)) continue;
    EXPECT_THAT(read_text(out / f), Not(HasSubstr(r2r::test::canary_package))) << f;
    EXPECT_THAT(read_text(out / f), Not(HasSubstr(r2r::test::canary_secret))) << f;
  }
}

}  // namespace
