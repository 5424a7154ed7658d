// SPDX-License-Identifier: MIT
#include "tar_archive.hpp"
#include "workspace_snapshot.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using namespace r2r::sandbox_common;

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

}  // namespace
