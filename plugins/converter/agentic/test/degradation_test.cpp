// SPDX-License-Identifier: MIT
// Rewrites that delete, stub or disable a kernel are named; faithful rewrites are not.
#include "degradation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::converter::agentic::find_degradation;
using ::testing::HasSubstr;

const char* const original =
    "__global__ void reduce(float* out, const float* in) {\n"
    "  float v = in[threadIdx.x];\n"
    "  for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o);\n"
    "  if (threadIdx.x == 0) *out = v;\n"
    "}\n"
    "void run(float* o, const float* i) { hipLaunchKernelGGL(reduce, dim3(1), dim3(64), 0, 0, o, i); }\n";

std::string replaced(const std::string& from, const std::string& to) {
  std::string s = original;
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(AgenticDegradation, AcceptsAFaithfulRewrite) {
  EXPECT_EQ(find_degradation(original, replaced("o = 16", "o = warpSize / 2")), "");
}

TEST(AgenticDegradation, RefusesAnEmptiedKernel) {
  const std::string body =
      "  float v = in[threadIdx.x];\n  for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o);\n"
      "  if (threadIdx.x == 0) *out = v;\n";
  EXPECT_THAT(find_degradation(original, replaced(body, "  // TODO: port\n")), HasSubstr("body is empty"));
}

TEST(AgenticDegradation, RefusesAnEarlyReturn) {
  EXPECT_THAT(find_degradation(original, replaced("  float v", "  return;\n  float v")),
              HasSubstr("starts with return;"));
}

TEST(AgenticDegradation, RefusesDroppedGlobalIfZeroAndRemovedLaunches) {
  EXPECT_THAT(find_degradation(original, replaced("__global__ void", "__device__ void")), HasSubstr("__global__"));
  EXPECT_THAT(find_degradation(original, replaced("  float v", "#if 0\n#endif\n  float v")), HasSubstr("#if 0"));
  EXPECT_THAT(find_degradation(original, replaced("hipLaunchKernelGGL(reduce, dim3(1), dim3(64), 0, 0, o, i);",
                                                  "for (int k = 0; k < 64; ++k) *o += i[k];")),
              HasSubstr("launch was removed"));
  EXPECT_THAT(find_degradation(original, replaced("  float v = in", "  torch::Tensor t;\n  float v = in")),
              HasSubstr("framework op"));
}

}  // namespace
