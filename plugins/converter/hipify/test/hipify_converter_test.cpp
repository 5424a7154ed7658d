// SPDX-License-Identifier: MIT
// The hipify plugin class through its typed request, without loading the library (fake host).
#include "hipify_converter.hpp"

#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using r2r::plugins::converter::hipify_converter;
using r2r::sdk::converter::convert_request;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

convert_request request(const nlohmann::json& j) {
  return j.get<convert_request>();
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class HipifyConverter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("r2r-hipify-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src" / "sub");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void put(const std::string& rel, const std::string& bytes) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel, std::ios::binary) << bytes;
  }

  r2r::sdk::testing::fake_host host_;
  fs::path dir_;
};

TEST_F(HipifyConverter, InlineFilesGiveTextDiffStatsAndSummary) {
  hipify_converter c(hipify_converter::config{}, host_.sdk_host());
  auto ctx = host_.context();
  const auto r = c.convert(request({{"files",
                                     {{{"path", "a.cu"}, {"text", "cudaFree(p); // cudaFree\n"}},
                                      {{"path", "notes.txt"}, {"text", "cudaFree"}},
                                      {{"path", "b.cpp"}, {"text", "int x;\n"}}}}}),
                           ctx);
  EXPECT_EQ(r.converter, "r2r.converter.hipify");
  ASSERT_EQ(r.files.size(), 3u);
  EXPECT_EQ(r.files[0].status, "converted");
  EXPECT_EQ(*r.files[0].text, "hipFree(p); // cudaFree\n");
  EXPECT_EQ(r.files[0].diff,
            "--- a/a.cu\n+++ b/a.cu\n@@ -1 +1 @@\n-cudaFree(p); // cudaFree\n+hipFree(p); // cudaFree\n");
  EXPECT_EQ(r.files[0].stats.at("renamed"), 1);
  EXPECT_EQ(r.files[1].status, "skipped");
  EXPECT_EQ(r.files[2].status, "unchanged");
  EXPECT_EQ(r.files[2].diff, "");
  EXPECT_EQ(r.summary.at("files"), 3);
  EXPECT_EQ(r.summary.at("converted"), 1);
  EXPECT_EQ(r.summary.at("skipped"), 1);
  EXPECT_EQ(r.summary.at("renamed"), 1);
}

TEST_F(HipifyConverter, BadFilesAreReportedPerFileAndTheRunGoesOn) {
  hipify_converter::config cfg;
  cfg.max_file_bytes = 2048;
  hipify_converter c(cfg, host_.sdk_host());
  put("src/binary.cu", std::string("\x7f"
                                   "ELF\0\0\0",
                                   7));
  put("src/latin1.cu", "// caf\xe9\ncudaFree(p);\n");
  put("src/open_comment.cu", "cudaFree(p);\n/* no end\n");
  put("src/open_string.cu", "const char* s = \"no end;\ncudaFree(p);\n");
  put("src/big.cu", std::string(4096, ' ') + "cudaFree(p);\n");
  put("src/good.cu", "cudaFree(p);\n");
  auto ctx = host_.context();
  const auto r = c.convert(request({{"root", dir_.string()},
                                    {"files",
                                     {{{"path", "src/binary.cu"}},
                                      {{"path", "src/latin1.cu"}},
                                      {{"path", "src/open_comment.cu"}},
                                      {{"path", "src/open_string.cu"}},
                                      {{"path", "src/big.cu"}},
                                      {{"path", "src/missing.cu"}},
                                      {{"path", "src/good.cu"}}}}}),
                           ctx);
  ASSERT_EQ(r.files.size(), 7u);
  const char* expected[] = {"binary", "invalid_utf8", nullptr, nullptr, "too_large", "unreadable"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(r.files[i].status, "error") << r.files[i].path;
    ASSERT_EQ(r.files[i].diagnostics.size(), 1u) << r.files[i].path;
    EXPECT_EQ(r.files[i].diagnostics[0].category, "bad_input") << r.files[i].path;
    if (expected[i] != nullptr) {
      EXPECT_EQ(r.files[i].diagnostics[0].name, expected[i]);
    }
    EXPECT_FALSE(r.files[i].diagnostics[0].message.empty());
  }
  EXPECT_THAT(r.files[2].diagnostics[0].message, HasSubstr("unterminated /* comment"));
  EXPECT_EQ(r.files[2].diagnostics[0].line, 2);
  EXPECT_THAT(r.files[3].diagnostics[0].message, HasSubstr("unterminated string literal"));
  EXPECT_EQ(r.files[6].status, "converted");
  EXPECT_EQ(r.summary.at("error"), 6);
}

TEST_F(HipifyConverter, WritesOutRootAndDiffsAgainstBase) {
  hipify_converter c(hipify_converter::config{}, host_.sdk_host());
  put("orig/src/a.cu", "cudaMalloc(&p, 4);\ncudaFree(p);\n");
  put("work/src/a.cu", "hipMalloc(&p, 4);\ncudaFree(p);\n");  // an earlier stage converted line 1
  auto ctx = host_.context();
  const auto r = c.convert(request({{"root", (dir_ / "work").string()},
                                    {"out_root", (dir_ / "work").string()},
                                    {"base_root", (dir_ / "orig").string()},
                                    {"files", {{{"path", "src/a.cu"}}}}}),
                           ctx);
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_FALSE(r.files[0].text) << "out_root given: text is not returned by default";
  EXPECT_EQ(read(dir_ / "work" / "src" / "a.cu"), "hipMalloc(&p, 4);\nhipFree(p);\n");
  EXPECT_THAT(r.files[0].diff, HasSubstr("-cudaMalloc(&p, 4);\n-cudaFree(p);\n+hipMalloc(&p, 4);\n+hipFree(p);\n"));
}

TEST_F(HipifyConverter, ProjectHeadersInTheRequestOrUnderRootAreNotCudas) {
  put("src/helper_cuda.h", "#pragma once\n");
  hipify_converter c(hipify_converter::config{}, host_.sdk_host());
  auto ctx = host_.context();
  const auto r = c.convert(request({{"root", dir_.string()},
                                    {"files",
                                     {{{"path", "src/a.cu"}, {"text", "#include \"helper_cuda.h\"\n"}},
                                      {{"path", "b.cu"}, {"text", "#include \"helper_math.h\"\n"}},
                                      {{"path", "c/helper_math.h"}, {"text", "#pragma once\n"}},
                                      {{"path", "c/d.cu"}, {"text", "#include \"helper_math.h\"\n"}}}}}),
                           ctx);
  EXPECT_TRUE(r.files[0].diagnostics.empty());
  ASSERT_EQ(r.files[1].diagnostics.size(), 1u) << "b.cu's helper_math.h is not in the project";
  EXPECT_EQ(r.files[1].diagnostics[0].category, "manual_port");
  EXPECT_TRUE(r.files[3].diagnostics.empty());

  // cuda-samples: <helper_cuda.h> found on -I Common/ is the project's when it carries the file.
  const auto s = c.convert(request({{"files",
                                     {{{"path", "Samples/v/v.cu"}, {"text", "#include <helper_cuda.h>\n"}},
                                      {{"path", "Common/helper_cuda.h"}, {"text", "#pragma once\n"}},
                                      {{"path", "w.cu"}, {"text", "#include <helper_math.h>\n"}}}}}),
                           ctx);
  EXPECT_TRUE(s.files[0].diagnostics.empty());
  ASSERT_EQ(s.files[2].diagnostics.size(), 1u) << "no helper_math.h anywhere in the project";
  EXPECT_EQ(s.files[2].diagnostics[0].category, "manual_port");
}

TEST_F(HipifyConverter, MacrosTheProjectDefinesAreNotUnknownCudaNames) {
  put("include/check.h", "#pragma once\n#define CUDA_CHECK(x) (x)\n");
  put("src/a.cu", "void f(float* p) { CUDA_CHECK(cudaFree(p)); CUDA_FANCY(p); }\n");
  hipify_converter c(hipify_converter::config{}, host_.sdk_host());
  auto ctx = host_.context();
  // Only a.cu is in the request; the header that defines CUDA_CHECK is found under root.
  const auto r = c.convert(request({{"root", dir_.string()}, {"files", {{{"path", "src/a.cu"}}}}}), ctx);
  ASSERT_EQ(r.files[0].diagnostics.size(), 1u);
  EXPECT_EQ(r.files[0].diagnostics[0].name, "CUDA_FANCY");
  EXPECT_EQ(*r.files[0].text, "void f(float* p) { CUDA_CHECK(hipFree(p)); CUDA_FANCY(p); }\n");
}

TEST_F(HipifyConverter, TargetRocmFromRequestOrConfig) {
  hipify_converter::config cfg;
  cfg.rocm_version = "5.2";
  hipify_converter c(cfg, host_.sdk_host());
  auto ctx = host_.context();
  const std::string text = "cudaDeviceSetLimit(cudaLimitStackSize, 1);\n";
  auto r = c.convert(request({{"files", {{{"path", "a.cu"}, {"text", text}}}}}), ctx);
  EXPECT_EQ(r.files[0].diagnostics.at(0).category, "rocm_too_old");
  r = c.convert(request({{"files", {{{"path", "a.cu"}, {"text", text}}}}, {"target", {{"rocm", "6.2"}}}}), ctx);
  EXPECT_THAT(*r.files[0].text, HasSubstr("hipDeviceSetLimit"));
  EXPECT_THROW(c.convert(request({{"files", nlohmann::json::array()}, {"target", {{"rocm", "six"}}}}), ctx),
               r2r::sdk::invalid_argument);
  cfg.rocm_version = "latest";
  EXPECT_THROW(hipify_converter(cfg, host_.sdk_host()), r2r::sdk::invalid_argument);
}

TEST_F(HipifyConverter, MalformedRequestsAndCancellation) {
  hipify_converter c(hipify_converter::config{}, host_.sdk_host());
  auto ctx = host_.context();
  EXPECT_THROW(c.convert(request({{"files", {{{"path", "../x.cu"}, {"text", ""}}}}}), ctx), r2r::sdk::invalid_argument);
  EXPECT_THROW(c.convert(request({{"files", {{{"path", "x.cu"}}}}}), ctx), r2r::sdk::invalid_argument);
  EXPECT_THROW(c.convert(request({{"root", "rel"}, {"files", nlohmann::json::array()}}), ctx),
               r2r::sdk::invalid_argument);
  host_.cancel();
  EXPECT_THROW(c.convert(request({{"files", {{{"path", "x.cu"}, {"text", ""}}}}}), ctx), r2r::sdk::cancelled);
}

}  // namespace
