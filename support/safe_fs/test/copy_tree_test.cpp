// SPDX-License-Identifier: MIT
// copy_tree and walk: links stay links, special files are reported, destinations never go through links.
#include "temp_tree.hpp"

#include <r2r/support/safe_fs.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace r2r::safe_fs {
namespace {

namespace fs = std::filesystem;
using testing::listing;
using testing::temp_tree;

struct CopyTree : ::testing::Test {
  temp_tree t;
  fs::path out() const { return t.base / "out"; }
  void SetUp() override { fs::create_directories(out()); }
};

TEST_F(CopyTree, LinksAreRecreatedWithTheSameTextAndNeverFollowed) {
  fs::create_directories(t.workspace / "d");
  temp_tree::put(t.workspace / "d/f", "file");
  fs::create_directory_symlink(t.canary, t.workspace / "d/x");
  fs::create_directory_symlink("..", t.workspace / "d/z");
  fs::create_symlink("f", t.workspace / "d/inside");
  const auto src = root::open(t.workspace, "workspace");
  const auto dst = root::open(out(), "destination");
  const auto report = copy_tree(src, "d", dst, "d");
  EXPECT_EQ(report.files, 1U);
  EXPECT_EQ(report.symlinks, 3U);
  EXPECT_EQ(report.bytes, 4U);
  EXPECT_EQ(fs::read_symlink(out() / "d/x"), t.canary);
  EXPECT_EQ(fs::read_symlink(out() / "d/z"), "..");
  EXPECT_EQ(fs::read_symlink(out() / "d/inside"), "f");
  EXPECT_EQ(temp_tree::get(out() / "d/inside"), "file");  // an inside link keeps working
}

TEST_F(CopyTree, FifosAreSkippedAndReportedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((t.workspace / "pipe").c_str(), 0600), 0);
  temp_tree::put(t.workspace / "f", "x");
  const auto report = copy_tree(root::open(t.workspace), "", root::open(out()), "");
  ASSERT_EQ(report.skipped.size(), 1U);
  EXPECT_EQ(report.skipped[0].path, "pipe");
  EXPECT_NE(report.skipped[0].reason.find("FIFO"), std::string::npos);
  EXPECT_FALSE(fs::exists(fs::symlink_status(out() / "pipe")));
  EXPECT_TRUE(fs::exists(out() / "f"));
}

TEST_F(CopyTree, HardlinksBecomeIndependentFiles) {
  fs::create_hard_link(t.canary / "secret", t.workspace / "h");
  copy_tree(root::open(t.workspace), "h", root::open(out()), "h");
  struct stat a {
  }, b{};
  ::stat((t.canary / "secret").c_str(), &a);
  ::stat((out() / "h").c_str(), &b);
  EXPECT_NE(a.st_ino, b.st_ino);
  temp_tree::put(out() / "h", "changed");
  EXPECT_EQ(temp_tree::get(t.canary / "secret"), "do not read");
}

TEST_F(CopyTree, ADestinationThroughALinkIsRefused) {
  temp_tree::put(t.base / "probe.conf", "owned");
  fs::create_directory_symlink(t.canary, t.workspace / "x");
  const auto before = listing(t.canary);
  const auto host = root::open(t.base, "host directory");
  const auto ws = root::open(t.workspace, "workspace");
  try {
    copy_tree(host, "probe.conf", ws, "x/probe.conf");
    FAIL() << "copied through the link";
  } catch (const error& e) {
    EXPECT_STREQ(e.what(),
                 "x/probe.conf: a path component is a symbolic link; refusing to follow it out of the workspace");
  }
  EXPECT_EQ(listing(t.canary), before);
}

TEST_F(CopyTree, ALinkAtTheDestinationIsReplacedNotWrittenThrough) {
  temp_tree::put(t.base / "new", "new content");
  fs::create_symlink(t.canary / "secret", t.workspace / "secret");
  fs::create_directory_symlink(t.canary, t.workspace / "dir");
  fs::create_directories(t.base / "srcdir");
  temp_tree::put(t.base / "srcdir/probe.conf", "owned");
  const auto host = root::open(t.base);
  const auto ws = root::open(t.workspace, "workspace");
  copy_tree(host, "new", ws, "secret");
  copy_tree(host, "srcdir", ws, "dir");  // the link named like the directory is replaced by a directory
  EXPECT_EQ(temp_tree::get(t.canary / "secret"), "do not read");
  EXPECT_FALSE(fs::exists(t.canary / "probe.conf"));
  EXPECT_EQ(temp_tree::get(t.workspace / "secret"), "new content");
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(t.workspace / "dir")));
}

TEST_F(CopyTree, RootsMergeAndModesSurvive) {
  fs::create_directories(t.workspace / "a/b");
  temp_tree::put(t.workspace / "a/b/run.sh", "#!/bin/sh\n");
  fs::permissions(t.workspace / "a/b/run.sh", fs::perms::owner_all);
  temp_tree::put(out() / "old", "kept");
  copy_tree(root::open(t.workspace), "", root::open(out()), "");
  EXPECT_EQ(fs::status(out() / "a/b/run.sh").permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(temp_tree::get(out() / "old"), "kept");
}

TEST_F(CopyTree, WalkVisitsEverythingOnceWithoutEnteringLinks) {
  fs::create_directories(t.workspace / "a/b");
  temp_tree::put(t.workspace / "a/b/f", "x");
  fs::create_directory_symlink(t.canary, t.workspace / "a/x");
  std::vector<std::string> seen;
  walk(root::open(t.workspace), "", [&](const walk_entry& w) {
    seen.push_back(w.path + (w.info.type == entry_type::symlink ? " -> " + w.link_target : ""));
    if (w.info.type == entry_type::regular) {
      EXPECT_EQ(temp_tree::get(t.workspace / w.path), "x");
    }
  });
  const std::vector<std::string> expected{"a", "a/b", "a/b/f", "a/x -> " + t.canary.string()};
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace r2r::safe_fs
