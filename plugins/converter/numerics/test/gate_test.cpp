// SPDX-License-Identifier: MIT
// The gate's verdicts: without an NVIDIA GPU the reference is not run, without a ROCm device the
// rewrite is only compiled, and neither is ever a pass; with both outputs (the recorded H200 runs
// standing in for the two devices) the comparison decides.
#include "numerics_gate.hpp"
#include "test_data.hpp"

#include <r2r/convert/scratch_dir.hpp>
#include <r2r/convert/subprocess.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::converter::numerics;
using namespace r2r::plugins::converter::numerics::test;
using nlohmann::json;
using ::testing::HasSubstr;

gate_input warp_reduce_input() {
  gate_input in;
  in.original_name = "warp_reduce.cu";
  in.original_text = fixture("warp_reduce.cu");
  in.rewritten_name = "warp_reduce.hip";
  in.rewritten_text = fixture("warp_reduce.hip");
  in.spec = spec("warp_reduce");
  in.archs = {"gfx90a"};
  return in;
}

TEST(NumericsGate, WithoutDevicesTheRewriteIsCompiledButNeverPasses) {
  device_tools tools;
  tools.nvcc = r2r::plugins::converter::find_program("nvcc", {"/usr/local/cuda/bin"});
  tools.hipcc = r2r::plugins::converter::find_program("hipcc", {"/opt/rocm/bin"});
  if (!tools.hipcc) GTEST_SKIP() << "hipcc is not installed";
  r2r::plugins::converter::scratch_dir dir("r2r-gate-test");
  const auto g = run_gate(warp_reduce_input(), tools, dir.path(), std::chrono::seconds(300), {});
  EXPECT_EQ(g.reference, tools.nvcc ? "reference not run: no NVIDIA GPU" : "reference not run: nvcc not found");
  ASSERT_EQ(g.candidate.size(), 1u);
  EXPECT_EQ(g.candidate[0], "compiled for gfx90a, numerics unchecked: no ROCm device");
  EXPECT_EQ(g.verdict, "unchecked");
  EXPECT_FALSE(g.compared);
  EXPECT_THAT(g.summary(), HasSubstr("numerics: unchecked; reference: reference not run"));
}

TEST(NumericsGate, MissingToolsAndOriginalAreSaidNotHidden) {
  gate_input in = warp_reduce_input();
  in.original_text.clear();
  r2r::plugins::converter::scratch_dir dir("r2r-gate-test");
  const auto g = run_gate(in, device_tools{}, dir.path(), std::chrono::seconds(60), {});
  EXPECT_EQ(g.reference, "reference not run: no CUDA original");
  EXPECT_EQ(g.candidate.at(0), "not compiled for gfx90a: hipcc not found");
  EXPECT_EQ(g.verdict, "unchecked");
  device_tools gpu_without_nvcc;
  gpu_without_nvcc.nvidia_gpu = true;
  EXPECT_EQ(run_gate(warp_reduce_input(), gpu_without_nvcc, dir.path(), std::chrono::seconds(60), {}).reference,
            "reference not run: nvcc not found");
}

TEST(NumericsGate, ABadSpecIsAnErrorNamingTheField) {
  gate_input in = warp_reduce_input();
  in.spec["args"].erase("out");
  r2r::plugins::converter::scratch_dir dir("r2r-gate-test");
  EXPECT_THROW(run_gate(in, device_tools{}, dir.path(), std::chrono::seconds(60), {}), std::invalid_argument);
}

TEST(NumericsGate, BothOutputsAreComparedAndOnlyAMatchPasses) {
  const json reference = recorded("warp_reduce.json");
  const auto pass = decide("ran on NVIDIA H200", reference, {"ran on gfx90a"}, recorded("warp_reduce.run2.json"),
                           spec("warp_reduce").at("tolerance"));
  EXPECT_EQ(pass.verdict, "pass") << pass.summary();
  json wrong = reference;
  values(wrong, "out")[0] = 42.0;
  const auto fail = decide("ran on NVIDIA H200", reference, {"ran on gfx90a"}, wrong, json::object());
  EXPECT_EQ(fail.verdict, "fail");
  EXPECT_THAT(fail.summary(), HasSubstr("first at [0]"));
  const auto half = decide("ran on NVIDIA H200", reference, {"compiled for gfx90a, numerics unchecked: no ROCm device"},
                           std::nullopt, json::object());
  EXPECT_EQ(half.verdict, "unchecked");
}

}  // namespace
