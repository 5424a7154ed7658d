// SPDX-License-Identifier: MIT
// The cooperative-groups ports (cg_idioms.hpp) through convert_source: tile votes and cg::reduce on
// tiles of a literal size are ported, groups the port cannot size are left and reported, and code
// that only looks similar (other objects' .any(), std::plus, a file's own reduce) is not touched.
#include <r2r/convert/cg_idioms.hpp>
#include <r2r/convert/hipify.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::converter::convert_source;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<const r2r::sdk::converter::diagnostic*> diags(const r2r::plugins::converter::conversion& c,
                                                          std::string_view category) {
  std::vector<const r2r::sdk::converter::diagnostic*> out;
  for (const auto& d : c.diagnostics) {
    if (d.category == category) out.push_back(&d);
  }
  return out;
}

std::string without_blocks(std::string text) {
  for (const std::string guard : {"R2R_CUDA_IDIOMS_H", "R2R_CG_IDIOMS_H"}) {
    const std::size_t begin = text.find("#ifndef " + guard);
    if (begin == std::string::npos) continue;
    const std::string end_marker = "#endif  // " + guard + "\n";
    const std::size_t end = text.find(end_marker, begin);
    text = text.substr(0, begin) + text.substr(end + end_marker.size());
  }
  return text;
}

TEST(CgIdioms, VotesOnLiteralTilesBecomeTheTilesBits) {
  const std::string in =
      "#include <cooperative_groups.h>\n"
      "namespace cg = cooperative_groups;\n"
      "__global__ void k(const int* x, unsigned* out) {\n"
      "  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());\n"
      "  auto quad = cg::tiled_partition<4>(cg::this_thread_block());\n"
      "  out[0] = warp.ballot(x[threadIdx.x] & 1) + quad.any(x[0] > 2) +\n"
      "warp.all(x[1]);\n"
      "}\n";
  const auto out = convert_source("k.cu", in, {});
  EXPECT_EQ(without_blocks(out.text),
            "#include <hip/hip_cooperative_groups.h>\n"
            "namespace cg = cooperative_groups;\n"
            "__global__ void k(const int* x, unsigned* out) {\n"
            "  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());\n"
            "  auto quad = cg::tiled_partition<4>(cg::this_thread_block());\n"
            "  out[0] = r2r_tile_ballot<32>(warp, x[threadIdx.x] & 1) + r2r_tile_any<4>(quad, x[0] > 2) +\n"
            "r2r_tile_all<32>(warp, x[1]);\n"
            "}\n");
  const std::string blocks =
      std::string(r2r::plugins::converter::helpers_block()) + std::string(r2r::plugins::converter::cg_helpers_block());
  EXPECT_EQ(out.text.rfind(blocks, 0), 0u)
      << "both blocks go before the first directive (threadIdx with no runtime include needs the idiom block)";
  EXPECT_EQ(out.stats.at("idioms_ported"), 3);
  EXPECT_TRUE(diags(out, "manual_port").empty());
  const auto ported = diags(out, "ported");
  ASSERT_EQ(ported.size(), 3u);
  EXPECT_EQ(ported[0]->line, 6 + std::count(blocks.begin(), blocks.end(), '\n'))
      << "diagnostics move down with the blocks";
}

TEST(CgIdioms, ReduceOnATileWithItsOperatorsIsPortedUnderAnyAlias) {
  const std::string in =
      "#include <cooperative_groups.h>\n"
      "#include <cooperative_groups/reduce.h>\n"
      "namespace groups = cooperative_groups;\n"
      "__device__ float sum(const groups::thread_block_tile<16>& t, float v, int w) {\n"
      "  int m = cooperative_groups::reduce(t, w, cooperative_groups::greater<int>());\n"
      "  return groups::reduce(t, v, groups::plus<float>()) + m;\n"
      "}\n";
  const auto out = convert_source("k.cu", in, {});
  EXPECT_EQ(without_blocks(out.text),
            "#include <hip/hip_cooperative_groups.h>\n"
            "#include <hip/hip_cooperative_groups.h>\n"
            "namespace groups = cooperative_groups;\n"
            "__device__ float sum(const groups::thread_block_tile<16>& t, float v, int w) {\n"
            "  int m = r2r_cg_reduce(t, w, r2r_cg_greater<int>());\n"
            "  return r2r_cg_reduce(t, v, r2r_cg_plus<float>()) + m;\n"
            "}\n");
  EXPECT_THAT(out.text, HasSubstr("#ifndef R2R_CG_IDIOMS_H"));
  EXPECT_TRUE(diags(out, "manual_port").empty());
}

TEST(CgIdioms, UnqualifiedNamesCountUnderUsingNamespace) {
  const std::string in =
      "#include <cooperative_groups.h>\n"
      "using namespace cooperative_groups;\n"
      "__global__ void k(int* x) {\n"
      "  thread_block_tile<32> w = tiled_partition<32>(this_thread_block());\n"
      "  x[0] = reduce(w, x[1], bit_and<int>());\n"
      "}\n";
  const auto out = convert_source("k.cu", in, {});
  EXPECT_THAT(out.text, HasSubstr("x[0] = r2r_cg_reduce(w, x[1], r2r_cg_bit_and<int>());"));
}

TEST(CgIdioms, GroupsThePortCannotSizeAreLeftAndReported) {
  const std::string in =
      "#include <cooperative_groups.h>\n"
      "#include <cooperative_groups/scan.h>\n"
      "namespace cg = cooperative_groups;\n"
      "template <unsigned S> __device__ int f(cg::thread_block_tile<S> t, int v) {\n"
      "  return cg::reduce(t, v, cg::plus<int>()) + t.ballot(v);\n"
      "}\n"
      "__device__ int g(int v) {\n"
      "  cg::coalesced_group active = cg::coalesced_threads();\n"
      "  auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
      "  return active.any(v) + w.match_any(v) + cg::inclusive_scan(w, v) + cg::reduce(cg::tiled_partition<8>(w), v, "
      "cg::plus<int>());\n"
      "}\n";
  const auto out = convert_source("k.cu", in, {});
  const auto left = diags(out, "manual_port");
  const auto shift = std::count(r2r::plugins::converter::cg_helpers_block().begin(),
                                r2r::plugins::converter::cg_helpers_block().end(), '\n');
  std::vector<std::string> names;
  for (const auto* d : left) names.push_back(std::to_string(d->line - shift) + ":" + d->name);
  EXPECT_THAT(names, ::testing::ElementsAre("2:cooperative_groups/scan.h", "5:reduce", "5:ballot", "10:any",
                                            "10:match_any", "10:inclusive_scan", "10:reduce"));
  EXPECT_EQ(out.stats.at("idioms_left"), 7);
  EXPECT_THAT(out.text, HasSubstr("return cg::reduce(t, v, r2r_cg_plus<int>()) + t.ballot(v);"))
      << "the unsized reduce and vote stay as written";
  EXPECT_THAT(left[1]->message, HasSubstr("not a thread_block_tile with a literal size"));
  EXPECT_THAT(left[2]->hint, HasSubstr("thread_block_tile<N>"));
}

TEST(CgIdioms, LookalikesAreNotTouched) {
  const std::string in =
      "#include <cuda_runtime.h>\n"
      "#include <functional>\n"
      "struct flags { bool any(int) const; unsigned ballot(int) const; };\n"
      "int reduce(int a, int b, int c) { return a + b + c; }\n"
      "__device__ int k(flags f, int v) {\n"
      "  // cg::reduce(warp, v, cg::plus<int>()) in a comment\n"
      "  return f.any(v) + f.ballot(v) + reduce(v, v, v) + std::plus<int>()(v, v);\n"
      "}\n";
  const auto out = convert_source("k.cu", in, {});
  EXPECT_THAT(out.text, Not(HasSubstr("R2R_CG_IDIOMS_H")));
  EXPECT_THAT(out.text, HasSubstr("return f.any(v) + f.ballot(v) + reduce(v, v, v) + std::plus<int>()(v, v);"));
  EXPECT_THAT(out.text, HasSubstr("// cg::reduce(warp, v, cg::plus<int>()) in a comment"));
  EXPECT_TRUE(diags(out, "manual_port").empty());
}

TEST(CgIdioms, ASubTileOfATileIsPartitionedFromTheBlockWithAWarning) {
  const std::string in =
      "#include <cooperative_groups.h>\n"
      "namespace cg = cooperative_groups;\n"
      "__device__ int f(int v) {\n"
      "  cg::thread_block block = cg::this_thread_block();\n"
      "  auto warp = cg::tiled_partition<32>(block);\n"
      "  auto oct = cg::tiled_partition<8>(warp);\n"
      "  return oct.thread_rank() + v;\n"
      "}\n";
  const auto out = convert_source("k.cu", in, {});
  EXPECT_THAT(out.text, HasSubstr("auto warp = cg::tiled_partition<32>(block);\n"))
      << "a partition of the block itself is what HIP supports";
  EXPECT_THAT(out.text, HasSubstr("auto oct = cg::tiled_partition<8>(cooperative_groups::this_thread_block());\n"));
  bool warned = false;
  for (const auto& d : out.diagnostics) {
    if (d.name == "tiled_partition" && d.severity == "warning") {
      warned = true;
      EXPECT_EQ(d.line, 6);
      EXPECT_THAT(d.message, HasSubstr("meta_group_rank()"));
    }
  }
  EXPECT_TRUE(warned);
}

TEST(CgIdioms, ALaterDeclarationOfTheSameNameTakesItsOwnSize) {
  const std::string in =
      "#include <cooperative_groups.h>\n"
      "namespace cg = cooperative_groups;\n"
      "__device__ unsigned a(int v) { auto t = cg::tiled_partition<32>(cg::this_thread_block()); return t.ballot(v); "
      "}\n"
      "__device__ unsigned b(int v) { auto t = cg::tiled_partition<16>(cg::this_thread_block()); return t.ballot(v); "
      "}\n";
  const auto out = convert_source("k.cu", in, {});
  EXPECT_THAT(out.text, HasSubstr("return r2r_tile_ballot<32>(t, v); }\n__device__ unsigned b"));
  EXPECT_THAT(out.text, HasSubstr("return r2r_tile_ballot<16>(t, v); }\n"));
}

TEST(CgIdioms, ASecondPortChangesNothing) {
  const std::string in =
      "#include <cooperative_groups.h>\n"
      "#include <cooperative_groups/reduce.h>\n"
      "namespace cg = cooperative_groups;\n"
      "__global__ void k(float* x) {\n"
      "  auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
      "  x[threadIdx.x] = cg::reduce(w, x[threadIdx.x], cg::plus<float>()) + w.ballot(x[0] > 0);\n"
      "}\n";
  const auto once = convert_source("k.cu", in, {});
  const auto twice = convert_source("k.cu", once.text, {});
  EXPECT_EQ(twice.text, once.text);
  EXPECT_FALSE(twice.changed);
}

}  // namespace
