// SPDX-License-Identifier: MIT
// The comparison tool against the outputs recorded on an NVIDIA H200 (tests/data/h200): a CPU
// emulation of each kernel with 32-lane warps, computed from the recorded inputs, and a second
// recorded run must match; deliberately wrong outputs, a wave64 emulation of the unported kernel
// and different inputs must not.
#include "output_compare.hpp"
#include "test_data.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

namespace {

using namespace r2r::plugins::converter::numerics;
using namespace r2r::plugins::converter::numerics::test;
using nlohmann::json;
using ::testing::HasSubstr;

/// warp_sum on a CPU: each warp of `lanes` lanes runs the shuffle-down tree from offset 16 in
/// lock step (a lane past the warp's end reads its own value, as __shfl_down does); lane 0 of each
/// warp writes out[global / lanes].
json emulate_warp_sum(const json& in, std::size_t lanes, std::size_t outputs) {
  std::vector<float> v;
  for (const auto& x : in) v.push_back(x.get<float>());
  std::vector<float> out(outputs, 0.0f);
  for (std::size_t base = 0; base < v.size(); base += lanes) {
    std::vector<float> w(v.begin() + static_cast<long>(base), v.begin() + static_cast<long>(base + lanes));
    for (std::size_t offset = 16; offset > 0; offset /= 2) {
      const std::vector<float> before = w;
      for (std::size_t l = 0; l < lanes; ++l) w[l] = before[l] + (l + offset < lanes ? before[l + offset] : before[l]);
    }
    if (base / lanes < outputs) out[base / lanes] = w[0];
  }
  json j = json::array();
  for (float f : out) j.push_back(f);
  return j;
}

json emulate_count_positive(const json& in) {
  json counts = json::array();
  for (std::size_t base = 0; base < in.size(); base += 32) {
    int n = 0;
    for (std::size_t l = 0; l < 32; ++l) n += in[base + l].get<int>() > 0 ? 1 : 0;
    counts.push_back(n);
  }
  return counts;
}

json with_output(json doc, const std::string& name, json v) {
  values(doc, name) = std::move(v);
  return doc;
}

TEST(CompareWithH200, CpuEmulationWith32LaneWarpsMatchesTheRecordedWarpReduction) {
  const json h200 = recorded("warp_reduce.json");
  ASSERT_EQ(h200.at("device"), "NVIDIA H200");
  ASSERT_EQ(h200.at("warp_size"), 32);
  json doc = h200;
  const json cpu = with_output(doc, "out", emulate_warp_sum(values(doc, "in"), 32, 16));
  const auto c = compare_outputs(h200, cpu, spec("warp_reduce").at("tolerance"));
  EXPECT_TRUE(c.passed) << c.summary();
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].count, 16u);
  EXPECT_LE(c.outputs[0].max_ulp, 4);
}

TEST(CompareWithH200, CpuEmulationMatchesTheRecordedBallotAndLaneIds) {
  json ballot = recorded("ballot.json");
  const json cpu = with_output(ballot, "counts", emulate_count_positive(values(ballot, "in")));
  EXPECT_TRUE(compare_outputs(ballot, cpu).passed) << compare_outputs(ballot, cpu).summary();
  json lanes = recorded("inline_ptx.json");
  json ids = json::array();
  for (unsigned i = 0; i < 256; ++i) ids.push_back(i % 32);
  const json cpu_lanes = with_output(lanes, "out", ids);
  EXPECT_TRUE(compare_outputs(lanes, cpu_lanes).passed) << compare_outputs(lanes, cpu_lanes).summary();
}

TEST(CompareWithH200, SecondRecordedRunMatchesTheFirst) {
  for (const std::string stem : {"warp_reduce", "ballot", "inline_ptx"}) {
    const auto c = compare_outputs(recorded(stem + ".json"), recorded(stem + ".run2.json"));
    EXPECT_TRUE(c.passed) << stem << ": " << c.summary();
  }
}

TEST(CompareWithH200, DeliberatelyWrongOutputsFailAtTheirFirstWrongElement) {
  json warp = recorded("warp_reduce.json");
  json wrong = warp;
  values(wrong, "out")[3] = values(wrong, "out")[3].get<double>() + 1e-3;
  auto c = compare_outputs(warp, wrong, spec("warp_reduce").at("tolerance"));
  EXPECT_FALSE(c.passed);
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].mismatches, 1u);
  EXPECT_EQ(c.outputs[0].first_mismatch, 3u);
  EXPECT_THAT(c.summary(), HasSubstr("MISMATCH"));

  json ballot = recorded("ballot.json");
  json off_by_one = ballot;
  values(off_by_one, "counts")[0] = values(off_by_one, "counts")[0].get<int>() + 1;
  EXPECT_FALSE(compare_outputs(ballot, off_by_one).passed);

  json lanes = recorded("inline_ptx.json");
  json wave64 = lanes;
  for (std::size_t i = 0; i < 256; ++i) values(wave64, "out")[i] = i % 64;  // lane ids of a 64-lane wave
  const auto lc = compare_outputs(lanes, wave64);
  EXPECT_FALSE(lc.passed);
  EXPECT_EQ(lc.outputs[0].first_mismatch, 32u);
}

TEST(CompareWithH200, TheUnportedReductionOnA64LaneWaveIsCaught) {
  json warp = recorded("warp_reduce.json");
  // The HIP fixture as hipify leaves it, run on wave64: the tree from 16 sums only half of each
  // wave, and lane 0 of each 64-lane wave writes out[global / 64].
  const json wave64 = with_output(warp, "out", emulate_warp_sum(values(warp, "in"), 64, 16));
  const auto c = compare_outputs(warp, wave64, spec("warp_reduce").at("tolerance"));
  EXPECT_FALSE(c.passed);
  EXPECT_GE(c.outputs.at(0).mismatches, 8u) << c.summary();
}

TEST(CompareOutputs, DifferentInputsOrShapesAreProblemsNotMatches) {
  json warp = recorded("warp_reduce.json");
  json other_input = warp;
  values(other_input, "in")[0] = 0.5;
  auto c = compare_outputs(warp, other_input);
  EXPECT_FALSE(c.passed);
  EXPECT_THAT(c.summary(), HasSubstr("input 'in' differs"));
  json shorter = warp;
  values(shorter, "out").erase(values(shorter, "out").begin());
  EXPECT_THAT(compare_outputs(warp, shorter).summary(), HasSubstr("element counts differ (reference 16, got 15)"));
  json other_kernel = warp;
  other_kernel["kernel"] = "other";
  EXPECT_FALSE(compare_outputs(warp, other_kernel).passed);
  EXPECT_FALSE(compare_outputs(json::array(), warp).passed);
}

json one_output(const std::string& type, json v) {
  return json{{"kernel", "k"},
              {"args", json::array({json{{"name", "out"}, {"dtype", type}, {"role", "out"}, {"values", v}}})}};
}

TEST(CompareOutputs, UlpAbsoluteRelativeAndSpecialValues) {
  const float x = 1.5f;
  const float x1 = std::nextafter(x, 2.0f);
  float x5 = x;
  for (int i = 0; i < 5; ++i) x5 = std::nextafter(x5, 2.0f);
  const json exact{{"f32", {{"abs", 0}, {"rel", 0}, {"ulp", 4}}}};
  EXPECT_TRUE(compare_outputs(one_output("f32", {x}), one_output("f32", {x1}), exact).passed);
  const auto five = compare_outputs(one_output("f32", {x}), one_output("f32", {x5}), exact);
  EXPECT_FALSE(five.passed);
  EXPECT_EQ(five.outputs[0].max_ulp, 5);
  EXPECT_TRUE(compare_outputs(one_output("f32", {0.0}), one_output("f32", {-0.0}), exact).passed);
  EXPECT_TRUE(compare_outputs(one_output("f32", {100.0}), one_output("f32", {100.5}),
                              json{{"f32", {{"abs", 0}, {"rel", 0.01}, {"ulp", 0}}}})
                  .passed);
  EXPECT_TRUE(compare_outputs(one_output("f64", {"nan"}), one_output("f64", {"nan"})).passed);
  EXPECT_FALSE(compare_outputs(one_output("f64", {"nan"}), one_output("f64", {1.0})).passed);
  EXPECT_FALSE(compare_outputs(one_output("f64", {"inf"}), one_output("f64", {"-inf"})).passed);
  EXPECT_FALSE(
      compare_outputs(one_output("u64", {18446744073709551615ull}), one_output("u64", {18446744073709551614ull}))
          .passed);
  EXPECT_FALSE(compare_outputs(one_output("f32", {1.0}), one_output("f64", {1.0})).passed);
  EXPECT_THROW(tolerance_for(dtype::f32, json{{"f32", {{"abs", -1}}}}), std::invalid_argument);
}

}  // namespace
