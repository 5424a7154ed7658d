// SPDX-License-Identifier: MIT
// PyTorch extensions pass the build check the way a ROCm build of torch.utils.cpp_extension
// compiles them (PyTorch's hipify, then hipcc with the torch headers and flags), in the HIP 6.4
// rootfs with PyTorch (fixture hip_torch_rootfs: scripts/toolchains/hip.sh 6.4 DIR --with-torch).
// The sources are the port's output, as in `repo2rocm port`.
#include "build_checker.hpp"

#include <r2r/convert/hipify.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using r2r::plugins::converter::build_checker;
using r2r::sdk::converter::build_result;
using r2r::sdk::converter::convert_request;
using r2r::sdk::converter::convert_response;
using ::testing::HasSubstr;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const build_result* find(const convert_response& r, std::string_view file, std::string_view arch) {
  for (const auto& b : r.builds) {
    if (b.file == file && b.arch == arch) return &b;
  }
  return nullptr;
}

class TorchBuildCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string rootfs = R2R_HIP_ROOTFS_DIR;
    const std::string torch = R2R_HIP_TORCH_ROOTFS_DIR;
    ASSERT_TRUE(fs::exists(fs::path(rootfs) / "usr/bin/hipcc")) << "no HIP rootfs in " << rootfs;
    ASSERT_TRUE(fs::exists(fs::path(torch) / ".r2r-torch"))
        << "no HIP rootfs with PyTorch in " << torch << "; build it: scripts/toolchains/hip.sh 6.4 " << torch
        << " --with-torch (ctest runs it as the fixture hip_torch_rootfs_setup)";
    cfg_.toolchain = "rootfs";
    cfg_.rootfs = rootfs;
    cfg_.torch_rootfs = torch;
  }

  /// The port's output of `names` in `dir`, as inline files; the port must leave no error.
  static nlohmann::json ported(const fs::path& dir, std::initializer_list<const char*> names) {
    nlohmann::json files = nlohmann::json::array();
    for (const char* name : names) {
      const auto c = r2r::plugins::converter::convert_source(name, slurp(dir / name), {});
      for (const auto& d : c.diagnostics) EXPECT_NE(d.severity, "error") << name << ":" << d.line << ": " << d.message;
      files.push_back({{"path", name}, {"text", c.text}});
    }
    return files;
  }

  convert_response check(const nlohmann::json& files, std::vector<std::string> arch) {
    build_checker checker(cfg_, host_.sdk_host());
    auto ctx = host_.context();
    return checker.convert(nlohmann::json{{"files", files}, {"target", {{"arch", arch}}}}.get<convert_request>(), ctx);
  }

  build_checker::config cfg_;
  r2r::sdk::testing::fake_host host_;
};

TEST_F(TorchBuildCheck, ExtSampleCompilesForGfx942AndGfx950AfterPytorchsHipify) {
  const auto r = check(ported(R2R_TORCH_EXT_DIR, {"ext_sample.cu"}), {"gfx942", "gfx950"});
  ASSERT_EQ(r.builds.size(), 2u);
  for (const auto& b : r.builds) {
    EXPECT_EQ(b.status, "passed") << b.arch << ": " << b.message << "\n" << b.log;
    EXPECT_THAT(b.toolchain, HasSubstr("+ PyTorch 2."));
    EXPECT_THAT(b.command, HasSubstr("-DUSE_ROCM=1"));
    EXPECT_THAT(b.command, HasSubstr("ext_sample.hip")) << "the file PyTorch's hipify wrote is what compiles";
  }
}

TEST_F(TorchBuildCheck, TheFusedRmsnormExtensionCompilesForGfx942AndGfx950) {
  const fs::path dir = fs::path(R2R_TORCH_EXT_DIR) / "../../../examples/fused-rmsnorm/csrc";
  const auto r =
      check(ported(dir, {"rmsnorm_binding.cpp", "rmsnorm_kernel.cu", "rmsnorm_kernel.cuh"}), {"gfx942", "gfx950"});
  for (const char* arch : {"gfx942", "gfx950"}) {
    for (const char* file : {"rmsnorm_binding.cpp", "rmsnorm_kernel.cu"}) {
      const auto* b = find(r, file, arch);
      ASSERT_TRUE(b) << file << " " << arch;
      EXPECT_EQ(b->status, "passed") << file << " " << arch << ": " << b->message << "\n" << b->log;
    }
  }
  EXPECT_THAT(find(r, "rmsnorm_binding.cpp", "gfx950")->toolchain, HasSubstr("PyTorch"))
      << "the binding includes torch/extension.h";
  EXPECT_THAT(find(r, "rmsnorm_binding.cpp", "gfx950")->command, HasSubstr("-x c++"))
      << "CUDAExtension builds .cpp files with the host compiler";
  EXPECT_THAT(find(r, "rmsnorm_kernel.cu", "gfx950")->toolchain, ::testing::Not(HasSubstr("PyTorch")))
      << "the kernel uses no PyTorch header and compiles on its own";
}

TEST_F(TorchBuildCheck, APlantedErrorInAnExtensionIsReportedAtItsFileAndLine) {
  auto files = ported(R2R_TORCH_EXT_DIR, {"ext_sample.cu"});
  std::string text = files[0]["text"].get<std::string>();
  const std::size_t at = text.find("void f(torch::Tensor t) {\n");
  ASSERT_NE(at, std::string::npos);
  const std::size_t eol = text.find('\n', at) + 1;
  text.insert(eol, "  r2r_planted_undeclared(t);\n");
  const auto line = std::to_string(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(eol), '\n') + 1);
  files[0]["text"] = text;
  const auto r = check(files, {"gfx950"});
  ASSERT_EQ(r.builds.size(), 1u);
  const auto& b = r.builds[0];
  EXPECT_EQ(b.status, "failed");
  EXPECT_EQ(b.failure_class, "undeclared_identifier");
  EXPECT_THAT(b.names, ::testing::Contains(std::string("r2r_planted_undeclared")));
  EXPECT_THAT(b.log, HasSubstr("ext_sample.cu:" + line + ":")) << b.log;
  EXPECT_THAT(b.log, ::testing::Not(HasSubstr("ext_sample.hip:"))) << "diagnostics name the user's file";
}

// Written for the test: the idiom of mamba's selective_scan kernels (a constexpr std::min and
// std::max over an initializer list), which PyTorch's hipify turns into HIP's ::min/::max.
const char* const kMinMaxKernel =
    "#include <c10/util/Half.h>\n"
    "#include <algorithm>\n"
    "template <int N> struct traits {\n"
    "  static constexpr int kElts = std::min(8, N);\n"
    "  static constexpr int kSmem = std::max({4, N, 16});\n"
    "};\n"
    "__global__ void k(float* x) { x[threadIdx.x] = traits<32>::kElts + traits<32>::kSmem; }\n";

TEST_F(TorchBuildCheck, AttackPytorchsHipifyBreaksStdMinMaxOfAnUnportedExtension) {
  const auto r = check(nlohmann::json::array({{{"path", "k.cu"}, {"text", kMinMaxKernel}}}), {"gfx942"});
  ASSERT_EQ(r.builds.size(), 1u);
  EXPECT_EQ(r.builds[0].status, "failed") << r.builds[0].log;
  EXPECT_THAT(r.builds[0].log, HasSubstr("k.cu:4:")) << "::min is not constexpr";
}

TEST_F(TorchBuildCheck, DefenceThePortsStdMinMaxCompileAfterPytorchsHipify) {
  const auto c = r2r::plugins::converter::convert_source("k.cu", kMinMaxKernel, {});
  const auto r = check(nlohmann::json::array({{{"path", "k.cu"}, {"text", c.text}}}), {"gfx942"});
  ASSERT_EQ(r.builds.size(), 1u);
  EXPECT_EQ(r.builds[0].status, "passed") << r.builds[0].message << "\n" << r.builds[0].log;
}

TEST_F(TorchBuildCheck, AUnitThatReachesPytorchThroughAProjectHeaderIsAnExtension) {
  // mamba's layout: the .cu includes only its kernel header, which includes the c10 headers.
  const auto files = nlohmann::json::array(
      {{{"path", "csrc/k_fp16.cu"}, {"text", "#include \"kernel/k.cuh\"\ntemplate void run<c10::Half>(c10::Half*);\n"}},
       {{"path", "csrc/kernel/k.cuh"},
        {"text",
         "#pragma once\n#include \"../common.h\"\ntemplate <typename T> __global__ void k(T* x) { x[0] = T(kOne); }\n"
         "template <typename T> void run(T* x) { k<<<1, 64>>>(x); }\n"}},
       {{"path", "csrc/common.h"},
        {"text", "#pragma once\n#include <c10/util/Half.h>\nconstexpr float kOne = 1.f;\n"}}});
  const auto r = check(files, {"gfx942"});
  ASSERT_EQ(r.builds.size(), 1u);
  EXPECT_EQ(r.builds[0].status, "passed") << r.builds[0].message << "\n" << r.builds[0].log;
  EXPECT_THAT(r.builds[0].toolchain, HasSubstr("PyTorch"));
  EXPECT_THAT(r.builds[0].command, HasSubstr("k_fp16.hip"));
}

TEST_F(TorchBuildCheck, WithoutPytorchInTheToolchainAnExtensionIsLeftToTheContainer) {
  cfg_.torch_rootfs = "/nonexistent/hip-6.4-torch";
  const auto r = check(ported(R2R_TORCH_EXT_DIR, {"ext_sample.cu"}), {"gfx950"});
  ASSERT_EQ(r.builds.size(), 1u);
  EXPECT_EQ(r.builds[0].status, "checked_in_container");
  EXPECT_EQ(r.builds[0].failure_class, "needs_pytorch");
  EXPECT_THAT(r.builds[0].toolchain, ::testing::Not(HasSubstr("PyTorch")));
}

}  // namespace
