// SPDX-License-Identifier: MIT
// The HIP port of every idiom kernel (tests/convert/idioms, CUDA written for the tests: warp idioms,
// cooperative groups) compiles with HIP 6.4 for gfx90a, gfx942 and gfx950 in the toolchain rootfs; the same port's
// numerics are checked against the H200 original by the idiom_ports_match_h200 and cg_ports_match_h200 tests
// (tests/CMakeLists.txt).
#include "build_checker.hpp"

#include <r2r/convert/hipify.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using r2r::plugins::converter::build_checker;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(IdiomPorts, CompileWithHip64ForGfx90aGfx942AndGfx950) {
  const char* rootfs = std::getenv("R2R_HIP_ROOTFS");
  ASSERT_TRUE(rootfs && fs::exists(fs::path(rootfs) / "usr/bin/hipcc"))
      << "no HIP rootfs; build it: scripts/toolchains/hip.sh 6.4 DIR and set R2R_HIP_ROOTFS";
  const fs::path dir = R2R_IDIOMS_DIR;
  nlohmann::json files = nlohmann::json::array();
  for (const char* name : {"warp_idioms.cuh", "warp_idioms_main.cu", "idiom_inputs.hpp"}) {
    const auto c = r2r::plugins::converter::convert_source(name, slurp(dir / name), {});
    for (const auto& d : c.diagnostics) {
      EXPECT_NE(d.severity, "error") << name << ":" << d.line << ": " << d.message;
    }
    files.push_back({{"path", name}, {"text", c.text}});
  }
  build_checker::config cfg;
  cfg.toolchain = "rootfs";
  cfg.rootfs = rootfs;
  r2r::sdk::testing::fake_host host;
  build_checker checker(cfg, host.sdk_host());
  auto ctx = host.context();
  const auto r = checker.convert(nlohmann::json{{"files", files}}.get<r2r::sdk::converter::convert_request>(), ctx);
  ASSERT_EQ(r.builds.size(), 3u) << "the .cu unit for each default target (the headers compile through it)";
  for (const auto& b : r.builds) {
    EXPECT_EQ(b.status, "passed") << b.arch << ": " << b.log;
    EXPECT_THAT(b.toolchain, ::testing::StartsWith("HIP 6.4."));
  }
}

TEST(IdiomPorts, CooperativeGroupsPortsCompileWithHip64ForGfx90aGfx942AndGfx950) {
  const char* rootfs = std::getenv("R2R_HIP_ROOTFS");
  ASSERT_TRUE(rootfs && fs::exists(fs::path(rootfs) / "usr/bin/hipcc")) << "no HIP rootfs (R2R_HIP_ROOTFS)";
  const fs::path dir = R2R_IDIOMS_DIR;
  nlohmann::json files = nlohmann::json::array();
  for (const char* name : {"cg_idioms.cuh", "cg_idioms_main.cu", "idiom_inputs.hpp"}) {
    const auto c = r2r::plugins::converter::convert_source(name, slurp(dir / name), {});
    for (const auto& d : c.diagnostics) EXPECT_NE(d.severity, "error") << name << ":" << d.line << ": " << d.message;
    files.push_back({{"path", name}, {"text", c.text}});
  }
  build_checker::config cfg;
  cfg.toolchain = "rootfs";
  cfg.rootfs = rootfs;
  r2r::sdk::testing::fake_host host;
  build_checker checker(cfg, host.sdk_host());
  auto ctx = host.context();
  const auto r = checker.convert(nlohmann::json{{"files", files}}.get<r2r::sdk::converter::convert_request>(), ctx);
  ASSERT_EQ(r.builds.size(), 3u);
  for (const auto& b : r.builds) EXPECT_EQ(b.status, "passed") << b.arch << ": " << b.log;
}

TEST(IdiomPorts, TheFusedRmsnormExampleKernelPassesForGfx942AndGfx950WithNoModel) {
  const char* rootfs = std::getenv("R2R_HIP_ROOTFS");
  ASSERT_TRUE(rootfs && fs::exists(fs::path(rootfs) / "usr/bin/hipcc")) << "no HIP rootfs (R2R_HIP_ROOTFS)";
  const fs::path dir = fs::path(R2R_IDIOMS_DIR) / "../../../examples/fused-rmsnorm/csrc";
  nlohmann::json files = nlohmann::json::array();
  for (const char* name : {"rmsnorm_kernel.cu", "rmsnorm_kernel.cuh"}) {
    const auto c = r2r::plugins::converter::convert_source(name, slurp(dir / name), {});
    for (const auto& d : c.diagnostics) EXPECT_NE(d.severity, "error") << name << ":" << d.line << ": " << d.message;
    files.push_back({{"path", name}, {"text", c.text}});
  }
  build_checker::config cfg;
  cfg.toolchain = "rootfs";
  cfg.rootfs = rootfs;
  r2r::sdk::testing::fake_host host;
  build_checker checker(cfg, host.sdk_host());
  auto ctx = host.context();
  const auto request = nlohmann::json{{"files", files}, {"target", {{"arch", {"gfx942", "gfx950"}}}}}
                           .get<r2r::sdk::converter::convert_request>();
  const auto r = checker.convert(request, ctx);
  ASSERT_EQ(r.builds.size(), 2u);
  for (const auto& b : r.builds) EXPECT_EQ(b.status, "passed") << b.arch << ": " << b.log;
}

}  // namespace
