// SPDX-License-Identifier: MIT
#include <r2r/support/tar_archive.hpp>
#include <r2r/support/workspace_snapshot.hpp>

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using namespace r2r::tarball;

class TarArchive : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/r2r-tar-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir = templ;
  }
  void TearDown() override { fs::remove_all(dir); }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
  fs::path dir;
};

TEST_F(TarArchive, DirectoryRoundTripKeepsBytesAndLinks) {
  fs::create_directories(dir / "src" / "sub");
  std::ofstream(dir / "src" / "sub" / "bin", std::ios::binary) << std::string("\0\1\2\xff", 4);
  fs::create_symlink("sub/bin", dir / "src" / "link");
  write_tar(dir / "src", dir / "a.tar", "top");
  fs::create_directories(dir / "out");
  EXPECT_GE(extract_tar(dir / "a.tar", dir / "out"), 3u);
  EXPECT_EQ(read(dir / "out" / "top" / "sub" / "bin"), std::string("\0\1\2\xff", 4));
  EXPECT_TRUE(fs::is_symlink(dir / "out" / "top" / "link"));
}

TEST_F(TarArchive, RefusesMembersThatEscape) {
  // A hostile archive (as a container could return) naming ../ and absolute paths.
  const fs::path tar = dir / "evil.tar";
  archive* w = archive_write_new();
  archive_write_set_format_pax_restricted(w);
  ASSERT_EQ(archive_write_open_filename(w, tar.c_str()), ARCHIVE_OK);
  archive_entry* e = archive_entry_new();
  archive_entry_set_pathname(e, "../escaped");
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_size(e, 1);
  archive_write_header(w, e);
  archive_write_data(w, "x", 1);
  archive_entry_free(e);
  archive_write_close(w);
  archive_write_free(w);
  fs::create_directories(dir / "out");
  EXPECT_THROW(extract_tar(tar, dir / "out"), std::runtime_error);
  EXPECT_FALSE(fs::exists(dir / "escaped"));
}

TEST_F(TarArchive, FilesTarHoldsExactContents) {
  write_tar_of_files({{"Dockerfile", "FROM x\n"}, {"files/a.txt", "A"}}, dir / "ctx.tar");
  fs::create_directories(dir / "out");
  EXPECT_EQ(extract_tar(dir / "ctx.tar", dir / "out"), 2u);
  EXPECT_EQ(read(dir / "out" / "Dockerfile"), "FROM x\n");
  EXPECT_EQ(read(dir / "out" / "files" / "a.txt"), "A");
}

TEST_F(TarArchive, SnapshotRestoreUndoesChanges) {
  fs::create_directories(dir / "ws" / "d");
  std::ofstream(dir / "ws" / "keep.txt") << "v1";
  std::ofstream(dir / "ws" / "d" / "x") << "x";
  take_snapshot(dir / "ws", dir / "snap.tar");
  fs::remove_all(dir / "ws" / "d");
  std::ofstream(dir / "ws" / "keep.txt") << "v2";
  std::ofstream(dir / "ws" / "new.txt") << "new";
  restore_snapshot(dir / "snap.tar", dir / "ws");
  EXPECT_EQ(read(dir / "ws" / "keep.txt"), "v1");
  EXPECT_EQ(read(dir / "ws" / "d" / "x"), "x");
  EXPECT_FALSE(fs::exists(dir / "ws" / "new.txt"));
}

// Issue 19: archives of an agent-written workspace, and archives an engine returns.
void add_member(archive* w, const std::string& name, int type, const std::string& data = "", const char* link = nullptr,
                const char* hardlink = nullptr) {
  archive_entry* e = archive_entry_new();
  archive_entry_set_pathname(e, name.c_str());
  archive_entry_set_filetype(e, static_cast<unsigned>(type));
  archive_entry_set_perm(e, 0644);
  if (link != nullptr) archive_entry_set_symlink(e, link);
  if (hardlink != nullptr) archive_entry_set_hardlink(e, hardlink);
  archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
  archive_write_header(w, e);
  if (!data.empty()) archive_write_data(w, data.data(), data.size());
  archive_entry_free(e);
}

TEST_F(TarArchive, SnapshotStoresLinksAsLinksAndNeverReadsThroughThem) {
  fs::create_directories(dir / "canary");
  std::ofstream(dir / "canary" / "secret") << "canary secret";
  fs::create_directories(dir / "ws" / "sub");
  fs::create_directory_symlink(dir / "canary", dir / "ws" / "c");
  fs::create_symlink(dir / "canary" / "secret", dir / "ws" / "s");
  fs::create_directory_symlink("..", dir / "ws" / "z");
  fs::create_symlink("sub", dir / "ws" / "in");
  ASSERT_EQ(::mkfifo((dir / "ws" / "pipe").c_str(), 0600), 0);
  std::ofstream(dir / "ws" / std::string("bad\xff\nname", 9)) << "odd";
  std::ofstream(dir / "ws" / "-dash") << "dash";
  take_snapshot(dir / "ws", dir / "snap.tar");  // a FIFO must not block it
  EXPECT_EQ(read(dir / "snap.tar").find("canary secret"), std::string::npos);
  fs::remove_all(dir / "ws" / "sub");
  fs::create_directory_symlink(dir / "canary", dir / "ws" / "sub");  // planted after the snapshot
  restore_snapshot(dir / "snap.tar", dir / "ws");
  EXPECT_EQ(fs::read_symlink(dir / "ws" / "c"), dir / "canary");
  EXPECT_EQ(fs::read_symlink(dir / "ws" / "s"), dir / "canary" / "secret");
  EXPECT_EQ(fs::read_symlink(dir / "ws" / "z"), "..");
  EXPECT_EQ(fs::read_symlink(dir / "ws" / "in"), "sub");
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(dir / "ws" / "sub")));
  EXPECT_EQ(fs::symlink_status(dir / "ws" / "pipe").type(), fs::file_type::fifo);
  EXPECT_EQ(read(dir / "ws" / std::string("bad\xff\nname", 9)), "odd");
  EXPECT_EQ(read(dir / "ws" / "-dash"), "dash");
  EXPECT_EQ(read(dir / "canary" / "secret"), "canary secret");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "canary"), fs::directory_iterator()), 1);
}

TEST_F(TarArchive, ExtractionNeverWritesBeneathALinkMember) {
  fs::create_directories(dir / "canary");
  const fs::path tar = dir / "evil.tar";
  archive* w = archive_write_new();
  archive_write_set_format_pax_restricted(w);
  ASSERT_EQ(archive_write_open_filename(w, tar.c_str()), ARCHIVE_OK);
  const std::string target = (dir / "canary").string();
  add_member(w, "x", AE_IFLNK, "", target.c_str());
  add_member(w, "x/probe.conf", AE_IFREG, "owned");
  archive_write_close(w);
  archive_write_free(w);
  fs::create_directories(dir / "out");
  try {
    extract_tar(tar, dir / "out", "workspace");
    ADD_FAILURE() << "extracted through the link";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("x/probe.conf: x: a path component is a symbolic link"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "canary" / "probe.conf"));
}

TEST_F(TarArchive, HardlinkMembersBecomeCopiesAndMayNotPointOutside) {
  fs::create_directories(dir / "out");
  const fs::path tar = dir / "links.tar";
  archive* w = archive_write_new();
  archive_write_set_format_pax_restricted(w);
  ASSERT_EQ(archive_write_open_filename(w, tar.c_str()), ARCHIVE_OK);
  add_member(w, "a", AE_IFREG, "shared");
  add_member(w, "b", AE_IFREG, "", nullptr, "a");
  archive_write_close(w);
  archive_write_free(w);
  EXPECT_EQ(extract_tar(tar, dir / "out"), 2u);
  struct stat a {
  }, b{};
  ::stat((dir / "out" / "a").c_str(), &a);
  ::stat((dir / "out" / "b").c_str(), &b);
  EXPECT_NE(a.st_ino, b.st_ino);
  EXPECT_EQ(read(dir / "out" / "b"), "shared");

  const fs::path evil = dir / "evil-link.tar";
  w = archive_write_new();
  archive_write_set_format_pax_restricted(w);
  ASSERT_EQ(archive_write_open_filename(w, evil.c_str()), ARCHIVE_OK);
  add_member(w, "passwd", AE_IFREG, "", nullptr, "../../../etc/passwd");
  archive_write_close(w);
  archive_write_free(w);
  EXPECT_THROW(extract_tar(evil, dir / "out"), std::runtime_error);
  EXPECT_FALSE(fs::exists(dir / "out" / "passwd"));
}

}  // namespace
