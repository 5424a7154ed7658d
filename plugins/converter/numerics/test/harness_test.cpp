// SPDX-License-Identifier: MIT
// Signatures, harness specs and generated drivers; the drivers are compiled with the real nvcc
// and hipcc when present, and the inputs recorded on the H200 are recomputed here.
#include "driver_generator.hpp"
#include "test_data.hpp"

#include <r2r/convert/scratch_dir.hpp>
#include <r2r/convert/subprocess.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

namespace {

using namespace r2r::plugins::converter::numerics;
using namespace r2r::plugins::converter::numerics::test;
using nlohmann::json;
using ::testing::HasSubstr;

TEST(KernelSignature, FixtureKernelsReadAsInputAndOutputPointers) {
  const auto sig = parse_signature(fixture("warp_reduce.cu"), "warp_sum");
  ASSERT_EQ(sig.params.size(), 2u);
  EXPECT_EQ(sig.params[0].name, "in");
  EXPECT_TRUE(sig.params[0].pointer);
  EXPECT_TRUE(sig.params[0].is_const);
  EXPECT_EQ(sig.params[0].type, dtype::f32);
  EXPECT_EQ(sig.params[1].name, "out");
  EXPECT_FALSE(sig.params[1].is_const);
  const auto lanes = parse_signature(fixture("inline_ptx.hip"), "write_lane");
  ASSERT_EQ(lanes.params.size(), 1u);
  EXPECT_EQ(lanes.params[0].type, dtype::u32);
}

TEST(KernelSignature, ScalarsRestrictAndLaunchBoundsAreRead) {
  const auto sig = parse_signature(
      "__global__ __launch_bounds__(256) void k(const double* __restrict__ in, long long* out, int n) {}", "k");
  ASSERT_EQ(sig.params.size(), 3u);
  EXPECT_EQ(sig.params[0].type, dtype::f64);
  EXPECT_EQ(sig.params[1].type, dtype::i64);
  EXPECT_FALSE(sig.params[2].pointer);
  EXPECT_EQ(sig.params[2].name, "n");
}

TEST(KernelSignature, AbsentKernelAndUnsupportedTypesSayWhatToDo) {
  try {
    parse_signature("__global__ void other(float* x) {}", "k");
    FAIL() << "an absent kernel was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("kernel 'k' not found; expected '__global__ void k(...)'"));
  }
  EXPECT_THROW(parse_signature("__global__ void k(float** x) {}", "k"), std::invalid_argument);
  try {
    parse_signature("__global__ void k(const __half* x) {}", "k");
    FAIL() << "a half parameter was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("has type '__half'; expected float, double"));
  }
}

TEST(HarnessSpec, BindsEveryParameterAndRefusesMissingOrExtraOnes) {
  const auto sig = parse_signature("__global__ void k(const float* in, float* out, int n) {}", "k");
  const json good = json::parse(R"({"kernel": "k", "grid": [2, 1], "block": 64,
      "args": {"in": {"count": 128, "fill": {"kind": "uniform", "seed": 3, "min": -2, "max": 2}},
               "out": {"count": 128}, "n": {"value": 128}}})");
  const auto h = bind_spec(good, sig);
  EXPECT_EQ(h.grid, (std::array<std::int64_t, 3>{2, 1, 1}));
  EXPECT_EQ(h.args[0].fill.kind, "uniform");
  EXPECT_EQ(h.args[2].value, 128);

  json missing = good;
  missing["args"].erase("n");
  EXPECT_THROW(
      {
        try {
          bind_spec(missing, sig);
        } catch (const std::invalid_argument& e) {
          EXPECT_THAT(e.what(), HasSubstr("no object for parameter 'n'; add {\"value\": V}"));
          throw;
        }
      },
      std::invalid_argument);
  json extra = good;
  extra["args"]["m"] = {{"value", 1}};
  EXPECT_THROW(bind_spec(extra, sig), std::invalid_argument);
  json unfilled = good;
  unfilled["args"]["in"].erase("fill");
  EXPECT_THROW(bind_spec(unfilled, sig), std::invalid_argument);
  json bad_fill = good;
  bad_fill["args"]["in"]["fill"]["kind"] = "random";
  EXPECT_THROW(bind_spec(bad_fill, sig), std::invalid_argument);
  json huge_block = good;
  huge_block["block"] = 2048;
  EXPECT_THROW(bind_spec(huge_block, sig), std::invalid_argument);
  json wrong_kernel = good;
  wrong_kernel["kernel"] = "other";
  EXPECT_THROW(bind_spec(wrong_kernel, sig), std::invalid_argument);
}

TEST(DriverGenerator, LaunchesTheKernelWithTheSpecShapeAndWritesEveryArgument) {
  const auto sig = parse_signature(fixture("warp_reduce.cu"), "warp_sum");
  const std::string cuda = generate_driver(bind_spec(spec("warp_reduce"), sig), "warp_reduce.cu", dialect::cuda);
  EXPECT_THAT(cuda, HasSubstr("#include \"warp_reduce.cu\""));
  EXPECT_THAT(cuda, HasSubstr("warp_sum<<<dim3(4, 1, 1), dim3(128, 1, 1)>>>(in_d, out_d);"));
  EXPECT_THAT(cuda, HasSubstr("cudaDeviceSynchronize()"));
  EXPECT_THAT(cuda, HasSubstr("put_arg<float, double>(f, \"out\", \"f32\", \"out\", out_h, 9, true);"));
  const std::string hip = generate_driver(bind_spec(spec("warp_reduce"), sig), "warp_reduce.hip", dialect::hip);
  EXPECT_THAT(hip, HasSubstr("hipMalloc(&in_d"));
  EXPECT_THAT(hip, ::testing::Not(HasSubstr("cuda")));
}

/// Compiles each fixture's generated driver: CUDA originals with nvcc, HIP fixtures with hipcc.
/// inline_ptx.hip keeps its PTX, which hipcc must refuse: the gate reports such a rewrite as failed.
TEST(DriverGenerator, DriversOfTheFixturesCompileWithTheRealCompilers) {
  const auto nvcc = r2r::plugins::converter::find_program("nvcc", {"/usr/local/cuda/bin"});
  const auto hipcc = r2r::plugins::converter::find_program("hipcc", {"/opt/rocm/bin"});
  if (!nvcc && !hipcc) GTEST_SKIP() << "neither nvcc nor hipcc is installed";
  r2r::plugins::converter::scratch_dir dir("r2r-numerics-test");
  for (const std::string stem : {"warp_reduce", "ballot", "inline_ptx"}) {
    for (const auto& [ext, tool, d] :
         {std::tuple{std::string(".cu"), nvcc, dialect::cuda}, std::tuple{std::string(".hip"), hipcc, dialect::hip}}) {
      if (!tool) continue;
      const std::string kernel = stem + ext;
      std::ofstream(dir.path() / kernel) << fixture(kernel);
      const auto sig = parse_signature(fixture(kernel), spec(stem).at("kernel").get<std::string>());
      const std::string driver = (dir.path() / (stem + "_driver" + ext)).string();
      std::ofstream(driver) << generate_driver(bind_spec(spec(stem), sig), kernel, d);
      r2r::plugins::converter::process_options o;
      o.argv = d == dialect::cuda
                   ? std::vector<std::string>{*tool, "-std=c++17", "-arch=sm_90", "-c", driver, "-o", driver + ".o"}
                   : std::vector<std::string>{
                         *tool, "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", "-c", driver, "-o", driver + ".o"};
      o.working_directory = dir.path().string();
      o.timeout = std::chrono::minutes(5);
      const auto r = r2r::plugins::converter::run_process(o);
      if (kernel == "inline_ptx.hip") {
        EXPECT_FALSE(r.ok()) << "hipcc accepted PTX for gfx90a";
        EXPECT_THAT(r.err + r.out, HasSubstr("invalid instruction"));
      } else {
        EXPECT_TRUE(r.ok()) << kernel << ": " << r.start_error << r.err << r.out;
      }
    }
  }
}

/// The driver's input generator, written again here: the inputs the H200 run recorded must be the
/// ones the spec describes, or the recorded outputs would not be reproducible on another machine.
std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

TEST(DriverGenerator, InputsRecordedOnTheH200AreTheSpecsDeterministicInputs) {
  json warp = recorded("warp_reduce.json");
  const json warp_spec = spec("warp_reduce");
  const json& fill = warp_spec.at("args").at("in").at("fill");
  std::uint64_t s = fill.at("seed").get<std::uint64_t>();
  const double lo = fill.at("min"), hi = fill.at("max");
  const json& in = values(warp, "in");
  ASSERT_EQ(in.size(), 512u);
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float expected =
        static_cast<float>(lo + static_cast<double>(splitmix(s) >> 11) * (1.0 / 9007199254740992.0) * (hi - lo));
    ASSERT_EQ(in[i].get<float>(), expected) << "element " << i;
  }
  json ballot = recorded("ballot.json");
  const json ballot_spec = spec("ballot");
  const json& ifill = ballot_spec.at("args").at("in").at("fill");
  s = ifill.at("seed").get<std::uint64_t>();
  const auto ilo = ifill.at("min").get<long long>(), ihi = ifill.at("max").get<long long>();
  for (const auto& v : values(ballot, "in")) {
    ASSERT_EQ(v.get<long long>(),
              ilo + static_cast<long long>(splitmix(s) % static_cast<std::uint64_t>(ihi - ilo + 1)));
  }
}

}  // namespace
