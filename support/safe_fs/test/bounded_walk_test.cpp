// SPDX-License-Identifier: MIT
// bounded_walk (added for the repository side, contain-repo): thousands of nested directories end
// at the depth limit without recursion or a flood of fds; links are reported, never entered;
// pruning works; names are classified and escaped; link targets are resolved lexically.
#include "temp_tree.hpp"

#include <r2r/support/safe_fs_bounded_walk.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace {

using r2r::safe_fs::testing::temp_tree;
namespace sf = r2r::safe_fs;

TEST(BoundedWalk, ThousandsOfLevelsStopAtTheLimitAndLinksAreNeverEntered) {
  temp_tree t;
  int fd = ::open(t.workspace.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  for (int i = 0; i < 1500; ++i) {
    ASSERT_EQ(::mkdirat(fd, "d", 0755), 0);
    const int next = ::openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    fd = next;
  }
  ::close(fd);
  std::filesystem::create_symlink(t.canary, t.workspace / "out");
  std::filesystem::create_directories(t.workspace / "skip/me");
  const auto r = sf::root::open(t.workspace, "repository");
  std::vector<std::string> seen;
  sf::bounded_walk_options o;
  o.max_depth = 100;
  const auto limits = sf::bounded_walk(r, o, [&](const sf::walk_entry& e) {
    seen.push_back(e.path);
    if (e.info.name == "out") {
      EXPECT_EQ(e.info.type, sf::entry_type::symlink);
      EXPECT_EQ(e.link_target, t.canary.string());
    }
    return e.info.name != "skip";
  });
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_NE(limits[0].reason.find("deeper than 100 levels"), std::string::npos);
  EXPECT_EQ(seen.size(), 100u + 2u);  // d x100, out, skip (its content pruned)
  for (const auto& p : seen) EXPECT_EQ(p.find("secret"), std::string::npos) << p;
}

TEST(BoundedWalk, NamesAndLinkTargets) {
  EXPECT_TRUE(sf::plain_name("a/b-c.cu"));
  EXPECT_TRUE(sf::plain_name("caf\xc3\xa9.cu"));
  EXPECT_FALSE(sf::plain_name("new\nline"));
  EXPECT_FALSE(sf::plain_name("caf\xe9.cu"));
  EXPECT_EQ(sf::escape_name("a\nb\\c\xe9"), "a\\nb\\\\c\\xe9");
  EXPECT_EQ(sf::link_target_inside("k/a.cu", "b.cu"), "k/b.cu");
  EXPECT_EQ(sf::link_target_inside("k/a.cu", "../b.cu"), "b.cu");
  EXPECT_EQ(sf::link_target_inside("k/a.cu", "../../b.cu"), "");
  EXPECT_EQ(sf::link_target_inside("a.cu", "/etc/passwd"), "");
  EXPECT_EQ(sf::link_target_inside("a.cu", "."), "");
}

}  // namespace
