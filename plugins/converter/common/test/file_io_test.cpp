// SPDX-License-Identifier: MIT
#include <r2r/convert/file_io.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

namespace {

using namespace r2r::plugins::converter;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

class FileIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("r2r-file-io-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FileIo, RejectsEscapingAndAbsolutePaths) {
  EXPECT_THROW(check_relative_path("/etc/passwd"), r2r::sdk::invalid_argument);
  EXPECT_THROW(check_relative_path("a/../../b"), r2r::sdk::invalid_argument);
  EXPECT_THROW(check_relative_path(".."), r2r::sdk::invalid_argument);
  EXPECT_THROW(check_relative_path(""), r2r::sdk::invalid_argument);
  EXPECT_NO_THROW(check_relative_path("a/..b/c..d/e.cu"));
  EXPECT_THROW(check_root("relative/dir", "root"), r2r::sdk::invalid_argument);
}

TEST_F(FileIo, LoadsInlineOrFromRootAndReportsProblems) {
  std::ofstream(dir_ / "src" / "a.cu") << "int a;\n";
  std::ofstream(dir_ / "src" / "b.cu", std::ios::binary) << std::string("x\0y", 3);
  const auto inline_file = load_input({"x.cu", std::string("int x;")}, "", 1024);
  EXPECT_EQ(inline_file.text, "int x;");
  const auto disk = load_input({"src/a.cu", std::nullopt}, dir_.string(), 1024);
  EXPECT_FALSE(disk.problem);
  EXPECT_EQ(disk.text, "int a;\n");
  const auto binary = load_input({"src/b.cu", std::nullopt}, dir_.string(), 1024);
  ASSERT_TRUE(binary.problem);
  EXPECT_EQ(binary.problem->kind, "binary");
  const auto missing = load_input({"src/none.cu", std::nullopt}, dir_.string(), 1024);
  ASSERT_TRUE(missing.problem);
  EXPECT_EQ(missing.problem->kind, "unreadable");
  EXPECT_THROW(load_input({"src/a.cu", std::nullopt}, "", 1024), r2r::sdk::invalid_argument);
  std::ofstream(dir_ / "src" / "big.cu") << std::string(5000, 'x');
  const auto big = load_input({"src/big.cu", std::nullopt}, dir_.string(), 1024);
  ASSERT_TRUE(big.problem);
  EXPECT_EQ(big.problem->kind, "too_large");
  const auto result = bad_input_result("src/big.cu", *big.problem);
  EXPECT_EQ(result.status, "error");
  EXPECT_EQ(result.diagnostics.at(0).category, "bad_input");
}

TEST_F(FileIo, WritesOutputsAndReadsBases) {
  write_output(dir_.string(), "deep/er/out.hip", "text\n");
  EXPECT_EQ(read_base(dir_.string(), "deep/er/out.hip", 1024), std::optional<std::string>("text\n"));
  EXPECT_FALSE(read_base("", "deep/er/out.hip", 1024));
  EXPECT_FALSE(read_base(dir_.string(), "absent", 1024));
  std::error_code ec;
  EXPECT_FALSE(fs::exists(dir_ / "deep" / "er" / "out.hip.r2r-tmp", ec));
}

}  // namespace
