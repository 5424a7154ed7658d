// SPDX-License-Identifier: MIT
// check_mounts: a read-only mount may never cover, shadow or sit beneath the workspace, climb with
// `..`, smuggle a bind option through ':' or ',', or name a host path that is not a directory.
#include "sandbox_setup.hpp"

#include <r2r/sdk/error.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>

namespace {

namespace fs = std::filesystem;
using r2r::plugins::sandbox::check_mounts;
using r2r::sdk::sandbox::ro_mount;

struct temp_source {
  fs::path dir = fs::temp_directory_path() / ("r2r-mounts-" + std::to_string(getpid()));
  temp_source() { fs::create_directories(dir / "real"); }
  ~temp_source() { fs::remove_all(dir); }
};

std::string refusal(const ro_mount& m) {
  try {
    (void)check_mounts({m}, "/workspace");
  } catch (const r2r::sdk::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(CheckMounts, AnExistingDirectoryOutsideTheWorkspaceIsAcceptedAndMadeCanonical) {
  temp_source t;
  fs::create_directory_symlink(t.dir / "real", t.dir / "link");
  const auto out = check_mounts({{(t.dir / "link").string(), "/opt/r2r-assets"}}, "/workspace");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].source, fs::canonical(t.dir / "real").string());
  EXPECT_EQ(out[0].target, "/opt/r2r-assets");
  EXPECT_TRUE(check_mounts({}, "/workspace").empty());
}

TEST(CheckMounts, TargetsOnOrAroundTheWorkspaceAreRefused) {
  temp_source t;
  const std::string src = (t.dir / "real").string();
  for (const char* target : {"/workspace", "/workspace/", "/workspace/models", "/", "/workspace/./x"})
    EXPECT_NE(refusal({src, target}).find("the target must not be"), std::string::npos) << target;
  // A sibling that only shares the prefix is not the workspace.
  EXPECT_EQ(refusal({src, "/workspace2"}), "");
}

TEST(CheckMounts, RelativeClimbingOrOptionBearingPathsAreRefused) {
  temp_source t;
  const std::string src = (t.dir / "real").string();
  EXPECT_NE(refusal({"real", "/assets"}).find("absolute"), std::string::npos);
  EXPECT_NE(refusal({src, "assets"}).find("absolute"), std::string::npos);
  EXPECT_NE(refusal({src, "/assets/../workspace"}).find("'..'"), std::string::npos);
  EXPECT_NE(refusal({src + "/../real", "/assets"}).find("'..'"), std::string::npos);
  EXPECT_NE(refusal({src, "/assets:rw"}).find("':'"), std::string::npos);
  EXPECT_NE(refusal({src + ",rw", "/assets"}).find("':'"), std::string::npos);
}

TEST(CheckMounts, ASourceThatIsNotAnExistingDirectoryIsRefused) {
  temp_source t;
  EXPECT_NE(refusal({(t.dir / "absent").string(), "/assets"}).find("not an existing directory"), std::string::npos);
  const auto file = t.dir / "file";
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    std::fclose(f);
  }
  EXPECT_NE(refusal({file.string(), "/assets"}).find("not an existing directory"), std::string::npos);
}

}  // namespace
