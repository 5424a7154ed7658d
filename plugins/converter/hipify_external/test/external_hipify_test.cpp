// SPDX-License-Identifier: MIT
// The external runner's contract. hipify-perl and hipify-clang are not packaged for Debian 12, so
// these tests put stand-in executables (small shell scripts with the tools' command-line shape) on
// the search path; with the real tools the same code paths run. The absent-tool case is real.
#include "external_hipify.hpp"

#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

namespace {

using r2r::plugins::converter::external_hipify;
using r2r::sdk::converter::convert_request;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

class ExternalHipify : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("r2r-external-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void tool(const std::string& name, const std::string& script) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n" << script;
    fs::permissions(p, fs::perms::owner_all);
  }
  external_hipify make(const std::string& which = "auto") {
    external_hipify::config cfg;
    cfg.tool = which;
    cfg.search_dirs = {dir_.string()};
    return external_hipify(cfg, host_.sdk_host());
  }

  r2r::sdk::testing::fake_host host_;
  fs::path dir_;
};

const convert_request kRequest = nlohmann::json{
    {"files",
     {{{"path", "src/a.cu"},
       {"text", "#include <cuda_runtime.h>\nvoid f(float* p) { cudaMalloc(&p, 4); cudaFree(p); }\n"}},
      {{"path", "doc.md"},
       {"text", "cudaMalloc"}}}}}.get<convert_request>();

TEST_F(ExternalHipify, AbsentToolIsUnavailable) {
  auto plugin = make();
  auto ctx = host_.context();
  try {
    plugin.convert(kRequest, ctx);
    FAIL() << "expected unavailable";
  } catch (const r2r::sdk::error& e) {
    EXPECT_EQ(e.status(), R2R_ERR_UNAVAILABLE);
    EXPECT_THAT(e.what(), HasSubstr("hipify-perl or hipify-clang was not found"));
    EXPECT_THAT(e.what(), HasSubstr(dir_.string()));
  }
}

TEST_F(ExternalHipify, RunsHipifyPerlAndAuditsWhatItLeaves) {
  // Renames cudaMalloc and the include, "forgets" cudaFree.
  tool("hipify-perl",
       "if [ \"$1\" = --version ]; then echo 'hipify-perl stand-in 1.0'; exit 0; fi\n"
       "for f; do :; done\nsed -e 's/cudaMalloc/hipMalloc/g' -e 's|cuda_runtime.h|hip/hip_runtime.h|' \"$f\"\n");
  auto plugin = make();
  auto ctx = host_.context();
  const auto r = plugin.convert(kRequest, ctx);
  EXPECT_EQ(r.converter, "r2r.converter.hipify-external");
  ASSERT_TRUE(r.tool);
  EXPECT_EQ(r.tool->name, "hipify-perl");
  EXPECT_EQ(r.tool->version, "hipify-perl stand-in 1.0");
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].status, "converted");
  EXPECT_EQ(*r.files[0].text, "#include <hip/hip_runtime.h>\nvoid f(float* p) { hipMalloc(&p, 4); cudaFree(p); }\n");
  EXPECT_THAT(r.files[0].diff, HasSubstr("+void f(float* p) { hipMalloc(&p, 4); cudaFree(p); }"));
  ASSERT_EQ(r.files[0].diagnostics.size(), 1u);
  EXPECT_EQ(r.files[0].diagnostics[0].category, "left_unconverted");
  EXPECT_EQ(r.files[0].diagnostics[0].name, "cudaFree");
  EXPECT_EQ(r.files[0].diagnostics[0].line, 2);
  EXPECT_EQ(r.files[1].status, "skipped");
  EXPECT_EQ(r.summary.at("left_unconverted"), 1);
}

TEST_F(ExternalHipify, RunsHipifyClangWithOutputFileAndClangArgs) {
  tool("hipify-clang",
       "in=$1; shift; [ \"$1\" = -o ] || exit 9; out=$2; shift 2; [ \"$1\" = -- ] || exit 8; shift\n"
       "[ \"$1\" = -DX=1 ] || { echo \"missing clang args\" >&2; exit 7; }\n"
       "sed -e 's/cudaMalloc/hipMalloc/g' -e 's/cudaFree/hipFree/g' -e 's|cuda_runtime.h|hip/hip_runtime.h|' \"$in\" > "
       "\"$out\"\n");
  external_hipify::config cfg;
  cfg.tool = "hipify-clang";
  cfg.search_dirs = {dir_.string()};
  cfg.clang_args = {"-DX=1"};
  external_hipify plugin(cfg, host_.sdk_host());
  auto ctx = host_.context();
  const auto r = plugin.convert(kRequest, ctx);
  EXPECT_EQ(r.tool->name, "hipify-clang");
  EXPECT_EQ(r.files[0].status, "converted");
  EXPECT_TRUE(r.files[0].diagnostics.empty());
}

TEST_F(ExternalHipify, ToolFailuresArePerFile) {
  tool("hipify-perl", "for f; do :; done\ncase \"$f\" in *bad.cu) echo 'parse error' >&2; exit 2;; esac\ncat \"$f\"\n");
  auto plugin = make("hipify-perl");
  auto ctx = host_.context();
  const auto request =
      nlohmann::json{
          {"files", {{{"path", "bad.cu"}, {"text", "int a;\n"}}, {{"path", "good.cu"}, {"text", "int b;\n"}}}}}
          .get<convert_request>();
  const auto r = plugin.convert(request, ctx);
  EXPECT_EQ(r.files[0].status, "error");
  EXPECT_EQ(r.files[0].diagnostics.at(0).category, "tool");
  EXPECT_THAT(r.files[0].diagnostics.at(0).message, HasSubstr("parse error"));
  EXPECT_EQ(r.files[1].status, "unchanged");
}

TEST_F(ExternalHipify, RejectsBadConfig) {
  external_hipify::config cfg;
  cfg.tool = "hipify-python";
  EXPECT_THROW(external_hipify(cfg, host_.sdk_host()), r2r::sdk::invalid_argument);
}

}  // namespace
