// SPDX-License-Identifier: MIT
// The build check with the real hipcc (scripts/bootstrap.sh installs it): what passes, what is
// never reported as passed, and how failures are classified.
#include "build_checker.hpp"

#include <r2r/convert/subprocess.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::converter::build_checker;
using r2r::sdk::converter::build_result;
using r2r::sdk::converter::convert_request;
using ::testing::HasSubstr;

const build_result* find(const r2r::sdk::converter::convert_response& r, std::string_view file, std::string_view arch) {
  for (const auto& b : r.builds) {
    if (b.file == file && b.arch == arch) return &b;
  }
  return nullptr;
}

class BuildCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(r2r::plugins::converter::find_program("hipcc", {"/opt/rocm/bin"}))
        << "hipcc is required by this test; run scripts/bootstrap.sh (apt-get install hipcc libamdhip64-dev "
           "rocm-device-libs)";
  }
  r2r::sdk::testing::fake_host host_;
};

TEST_F(BuildCheck, PassesForGfx90aAndNeverForTargetsTheToolchainLacks) {
  build_checker checker(build_checker::config{}, host_.sdk_host());
  auto ctx = host_.context();
  const auto request =
      nlohmann::json{
          {"files",
           {{{"path", "src/scale.hip"},
             {"text",
              "#include <hip/hip_runtime.h>\n#include \"scale.h\"\n"
              "__global__ void scale(float* x, float a, int n) {\n"
              "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] = kFactor * a * x[i];\n}\n"
              "void run(float* d, int n) { scale<<<(n + 255) / 256, 256>>>(d, 2.0f, n); }\n"}},
            {{"path", "src/scale.h"}, {"text", "#pragma once\nconstexpr float kFactor = 1.5f;\n"}}}},
          {"target", {{"arch", {"gfx90a", "gfx942"}}}}}
          .get<convert_request>();
  const auto r = checker.convert(request, ctx);
  ASSERT_TRUE(r.tool);
  EXPECT_THAT(r.tool->version, HasSubstr("HIP version"));
  ASSERT_EQ(r.builds.size(), 2u) << "the header is not a translation unit";
  const auto* ok = find(r, "src/scale.hip", "gfx90a");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->status, "passed") << ok->log;
  EXPECT_THAT(ok->command, HasSubstr("--offload-arch=gfx90a"));
  const auto* newer = find(r, "src/scale.hip", "gfx942");
  ASSERT_NE(newer, nullptr);
  EXPECT_EQ(newer->status, "not_checkable_here");
  EXPECT_EQ(newer->failure_class, "target_unknown");
  EXPECT_EQ(r.files[1].status, "skipped");
  EXPECT_EQ(r.summary.at("builds_passed"), 1);
  EXPECT_EQ(r.summary.at("builds_not_checkable_here"), 1);
}

TEST_F(BuildCheck, ClassifiesFailures) {
  build_checker::config cfg;
  cfg.default_arch = {"gfx90a"};
  build_checker checker(cfg, host_.sdk_host());
  auto ctx = host_.context();
  const auto request =
      nlohmann::json{
          {"files",
           {{{"path", "ext.cu"}, {"text", "#include <hip/hip_runtime.h>\n#include <torch/extension.h>\n"}},
            {{"path", "blas.cu"}, {"text", "#include <hipblas/hipblas.h>\n"}},
            {{"path", "warp.cu"},
             {"text",
              "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[0] = __shfl_down_sync(0xffffffff, "
              "x[0], 1); }\n"}},
            {{"path", "host.cpp"}, {"text", "int main() { return 0; }\n"}}}}}
          .get<convert_request>();
  const auto r = checker.convert(request, ctx);
  ASSERT_EQ(r.builds.size(), 3u);
  EXPECT_EQ(find(r, "ext.cu", "gfx90a")->status, "checked_in_container");
  EXPECT_EQ(find(r, "ext.cu", "gfx90a")->failure_class, "needs_pytorch");
  EXPECT_EQ(find(r, "blas.cu", "gfx90a")->failure_class, "missing_library");
  const auto* warp = find(r, "warp.cu", "gfx90a");
  EXPECT_EQ(warp->status, "failed");
  EXPECT_EQ(warp->failure_class, "undeclared_identifier");
  EXPECT_EQ(warp->names, std::vector<std::string>{"__shfl_down_sync"});
  EXPECT_EQ(r.files[3].status, "skipped") << "plain C++ without HIP code is not a HIP translation unit";
}

TEST_F(BuildCheck, MissingHipccIsUnavailable) {
  build_checker::config cfg;
  cfg.hipcc = "/nonexistent/bin/hipcc";
  build_checker checker(cfg, host_.sdk_host());
  auto ctx = host_.context();
  const auto request = nlohmann::json{{"files", {{{"path", "a.hip"}, {"text", ""}}}}}.get<convert_request>();
  try {
    checker.convert(request, ctx);
    FAIL() << "expected unavailable";
  } catch (const r2r::sdk::error& e) {
    EXPECT_EQ(e.status(), R2R_ERR_UNAVAILABLE);
    EXPECT_THAT(e.what(), HasSubstr("apt-get install hipcc"));
  }
}

TEST_F(BuildCheck, RejectsBadConfig) {
  build_checker::config cfg;
  cfg.default_arch = {"sm_80"};
  EXPECT_THROW(build_checker(cfg, host_.sdk_host()), r2r::sdk::invalid_argument);
}

}  // namespace
