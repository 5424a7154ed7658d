// SPDX-License-Identifier: MIT
// Attacks on single-path operations, under each resolver (openat2 and the O_NOFOLLOW walk).
#include "temp_tree.hpp"

#include <r2r/support/safe_fs.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdio>

namespace r2r::safe_fs {
namespace {

namespace fs = std::filesystem;
using testing::listing;
using testing::temp_tree;

class SafeFs : public ::testing::TestWithParam<resolver> {
 protected:
  void SetUp() override { set_resolver(GetParam()); }
  void TearDown() override { set_resolver(resolver::automatic); }
  root ws() const { return root::open(t.workspace, "workspace"); }
  temp_tree t;
};

template <typename F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}

TEST_P(SafeFs, WritesReadsAndCreatesBeneathTheRoot) {
  const auto r = ws();
  make_dirs(r, "a/b/c");
  write_file(r, "a/b/c/f.txt", "hello");
  EXPECT_EQ(read_file(r, "a/b/c/f.txt"), "hello");
  EXPECT_EQ(read_file(r, "./a//b/./c/f.txt"), "hello");
  write_file(r, "a/b/c/f.txt", "again");  // replaces
  EXPECT_EQ(temp_tree::get(t.workspace / "a/b/c/f.txt"), "again");
  EXPECT_EQ(stat(r, "a/b").type, entry_type::directory);
}

TEST_P(SafeFs, WriteThroughALinkedDirectoryIsRefusedAndNamed) {
  fs::create_directory_symlink(t.canary, t.workspace / "x");
  const auto before = listing(t.base);
  const auto r = ws();
  EXPECT_EQ(refusal([&] { write_file(r, "x/probe.conf", "owned"); }),
            "x/probe.conf: a path component is a symbolic link; refusing to follow it out of the workspace");
  EXPECT_NE(refusal([&] { make_dirs(r, "x/sub2"); }).find("symbolic link"), std::string::npos);
  EXPECT_NE(refusal([&] { read_file(r, "x/secret"); }).find("symbolic link"), std::string::npos);
  EXPECT_NE(refusal([&] { list(r, "x"); }).find("symbolic link"), std::string::npos);
  EXPECT_EQ(listing(t.base), before);
  EXPECT_FALSE(fs::exists(t.canary / "probe.conf"));
}

TEST_P(SafeFs, RelativeLinksUpAndToTheRootAreRefusedToo) {
  fs::create_directory_symlink("..", t.workspace / "z");
  fs::create_directory_symlink("/", t.workspace / "y");
  fs::create_directory_symlink(".", t.workspace / "self");  // points inside: still a link, still refused
  const auto before = listing(t.base);
  const auto r = ws();
  EXPECT_NE(refusal([&] { write_file(r, "z/canary/probe", "x"); }).find("symbolic link"), std::string::npos);
  EXPECT_NE(refusal([&] { read_file(r, "y/etc/hostname"); }).find("symbolic link"), std::string::npos);
  EXPECT_NE(refusal([&] { write_file(r, "self/f", "x"); }).find("symbolic link"), std::string::npos);
  EXPECT_EQ(listing(t.base), before);
}

TEST_P(SafeFs, AFileLinkIsReplacedNeverWrittenThroughOrRead) {
  fs::create_symlink(t.canary / "secret", t.workspace / "secret");
  const auto r = ws();
  EXPECT_NE(refusal([&] { read_file(r, "secret"); }).find("symbolic link"), std::string::npos);
  write_file(r, "secret", "mine");
  EXPECT_EQ(temp_tree::get(t.canary / "secret"), "do not read");
  EXPECT_FALSE(fs::is_symlink(t.workspace / "secret"));
  EXPECT_EQ(temp_tree::get(t.workspace / "secret"), "mine");
}

TEST_P(SafeFs, AHardlinkedFileIsReplacedByANewInode) {
  fs::create_hard_link(t.canary / "secret", t.workspace / "h");
  write_file(ws(), "h", "changed");
  EXPECT_EQ(temp_tree::get(t.canary / "secret"), "do not read");
  EXPECT_EQ(temp_tree::get(t.workspace / "h"), "changed");
}

TEST_P(SafeFs, DotDotAndAbsolutePathsAreRefusedBeforeAnyLookup) {
  const auto r = ws();
  EXPECT_NE(refusal([&] { write_file(r, "../canary/x", "x"); }).find("'..'"), std::string::npos);
  EXPECT_NE(refusal([&] { write_file(r, "a/../../x", "x"); }).find("'..'"), std::string::npos);
  EXPECT_NE(refusal([&] { read_file(r, t.canary.string() + "/secret"); }).find("absolute"), std::string::npos);
  EXPECT_NE(refusal([&] { write_file(r, "", "x"); }).find("itself"), std::string::npos);
}

TEST_P(SafeFs, AFifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((t.workspace / "pipe").c_str(), 0600), 0);
  EXPECT_NE(refusal([&] { read_file(ws(), "pipe"); }).find("a FIFO, not a regular file"), std::string::npos);
}

TEST_P(SafeFs, DanglingLinksAndLoopsAreRefusedAndRemovable) {
  fs::create_symlink(t.base / "missing", t.workspace / "dangling");
  fs::create_symlink("loop", t.workspace / "loop");
  const auto r = ws();
  EXPECT_NE(refusal([&] { read_file(r, "dangling"); }).find("symbolic link"), std::string::npos);
  EXPECT_NE(refusal([&] { write_file(r, "dangling/x", "x"); }).find("symbolic link"), std::string::npos);
  EXPECT_NE(refusal([&] { read_file(r, "loop"); }).find("symbolic link"), std::string::npos);
  EXPECT_FALSE(fs::exists(t.base / "missing"));
  remove_tree(r, "dangling");
  remove_tree(r, "loop");
  EXPECT_TRUE(list(r, "").empty());
}

TEST_P(SafeFs, RemoveTreeRemovesLinksNotTheirTargets) {
  fs::create_directory_symlink(t.canary, t.workspace / "x");
  fs::create_directories(t.workspace / "d/e");
  fs::create_directory_symlink(t.canary / "sub", t.workspace / "d/e/in");
  temp_tree::put(t.workspace / "d/e/f", "f");
  ::chmod((t.workspace / "d/e").c_str(), 0500);
  const auto before = listing(t.canary);
  remove_tree(ws(), "");
  EXPECT_TRUE(fs::is_empty(t.workspace));
  EXPECT_EQ(listing(t.canary), before);
  remove_tree(ws(), "not/there");  // missing: nothing to do
}

TEST_P(SafeFs, OddNamesWork) {
  const auto r = ws();
  const std::string names[] = {"new\nline", std::string("bad\xff\xfe", 5), "-rf", "--", " spaced "};
  for (const auto& n : names) {
    make_dirs(r, n);
    write_file(r, n + "/" + n, n);
    EXPECT_EQ(read_file(r, n + "/" + n), n);
  }
  EXPECT_EQ(list(r, "").size(), 5U);
  remove_tree(r, "-rf");
  EXPECT_EQ(list(r, "").size(), 4U);
}

TEST_P(SafeFs, ListReportsLinksAsLinks) {
  fs::create_directory_symlink(t.canary, t.workspace / "x");
  temp_tree::put(t.workspace / "f", "abc");
  const auto entries = list(ws(), "");
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries[0].name, "f");
  EXPECT_EQ(entries[0].size, 3U);
  EXPECT_EQ(entries[1].name, "x");
  EXPECT_EQ(entries[1].type, entry_type::symlink);
}

INSTANTIATE_TEST_SUITE_P(Resolvers, SafeFs, ::testing::Values(resolver::openat2, resolver::walk),
                         [](const auto& p) { return p.param == resolver::openat2 ? "openat2" : "walk"; });

// Under a seccomp filter that answers openat2 with EPERM (as container runtimes do), the automatic
// resolver falls back to the walk and still refuses links.
void deny_openat2_with_eperm() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    std::perror("seccomp");
    std::_Exit(3);
  }
}

TEST(SafeFsFallback, OpenatTwoDeniedWithEpermFallsBackToTheWalk) {
  temp_tree t;
  fs::create_directory_symlink(t.canary, t.workspace / "x");
  EXPECT_EXIT(
      {
        deny_openat2_with_eperm();
        set_resolver(resolver::automatic);
        const auto r = root::open(t.workspace, "workspace");
        write_file(r, "ok.txt", "fine");
        if (read_file(r, "ok.txt") != "fine") std::_Exit(4);
        try {
          write_file(r, "x/probe.conf", "owned");
          std::_Exit(5);
        } catch (const error& e) {
          if (std::string(e.what()).find("symbolic link") == std::string::npos) std::_Exit(6);
        }
        set_resolver(resolver::openat2);  // forced: the EPERM surfaces instead of a silent fallback
        try {
          (void)read_file(r, "ok.txt");
          std::_Exit(7);
        } catch (const error& e) {
          if (e.code() != EPERM) std::_Exit(8);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_FALSE(fs::exists(t.canary / "probe.conf"));
}

}  // namespace
}  // namespace r2r::safe_fs
