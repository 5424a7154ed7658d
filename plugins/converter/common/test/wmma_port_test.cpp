// SPDX-License-Identifier: MIT
// nvcuda::wmma -> rocWMMA (wmma_port.hpp) through convert_source: supported fragments port the whole
// file, any unsupported one leaves the whole file as it was with a precise manual_port, and files
// that only look similar are untouched.
#include <r2r/convert/hipify.hpp>
#include <r2r/convert/wmma_port.hpp>

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
    if (d.category == category && d.name == "nvcuda::wmma") out.push_back(&d);
  }
  return out;
}

// The cuda-samples shape of a wmma kernel: shapes as macros and constants, `using namespace nvcuda`.
const std::string kSamplesGemm =
    "#include <cuda_runtime.h>\n"
    "#include <mma.h>\n"
    "using namespace nvcuda;\n"
    "#define WMMA_M 16\n"
    "#define WMMA_N 16\n"
    "constexpr int WMMA_K = 16;\n"
    "__global__ void gemm(const half* a, const half* b, float* c, int ld) {\n"
    "  const int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;\n"
    "  wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> fa;\n"
    "  wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> fb;\n"
    "  wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc;\n"
    "  wmma::fill_fragment(acc, 0.0f);\n"
    "  wmma::load_matrix_sync(fa, a + warp_m * 16 * ld, ld);\n"
    "  wmma::load_matrix_sync(fb, b, ld);\n"
    "  wmma::mma_sync(acc, fa, fb, acc);\n"
    "  for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= 2.0f;\n"
    "  wmma::store_matrix_sync(c + warp_m * 16, acc, ld, wmma::mem_row_major);\n"
    "}\n";

TEST(WmmaPort, SupportedFragmentsPortTheFileToRocwmma) {
  const auto out = convert_source("gemm.cu", kSamplesGemm, {});
  EXPECT_EQ(out.text,
            "#include <hip/hip_runtime.h>\n"
            "#include <rocwmma/rocwmma.hpp>\n"
            "namespace wmma = rocwmma;\n"
            "#define WMMA_M 16\n"
            "#define WMMA_N 16\n"
            "constexpr int WMMA_K = 16;\n"
            "__global__ void gemm(const half* a, const half* b, float* c, int ld) {\n"
            "  const int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;\n"
            "  rocwmma::fragment<rocwmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, rocwmma::row_major> fa;\n"
            "  rocwmma::fragment<rocwmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, rocwmma::col_major> fb;\n"
            "  rocwmma::fragment<rocwmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc;\n"
            "  rocwmma::fill_fragment(acc, 0.0f);\n"
            "  rocwmma::load_matrix_sync(fa, a + warp_m * 16 * ld, ld);\n"
            "  rocwmma::load_matrix_sync(fb, b, ld);\n"
            "  rocwmma::mma_sync(acc, fa, fb, acc);\n"
            "  for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= 2.0f;\n"
            "  rocwmma::store_matrix_sync(c + warp_m * 16, acc, ld, rocwmma::mem_row_major);\n"
            "}\n");
  EXPECT_TRUE(diags(out, "manual_port").empty());
  const auto warned = diags(out, "ported");
  ASSERT_EQ(warned.size(), 1u);
  EXPECT_EQ(warned[0]->severity, "warning");
  EXPECT_EQ(warned[0]->line, 9);
  EXPECT_THAT(warned[0]->message, HasSubstr("64-lane wavefront"));
  for (const auto& d : out.diagnostics) EXPECT_NE(d.severity, "error") << d.line << ": " << d.message;
}

TEST(WmmaPort, QualifiedUsingAndAliasSpellingsPortAlike) {
  const std::string in =
      "#include <mma.h>\n"
      "namespace tc = nvcuda::wmma;\n"
      "__device__ void f(const __half* p) {\n"
      "  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> a;\n"
      "  tc::fragment<tc::accumulator, 16, 16, 16, __half> c;\n"
      "  tc::load_matrix_sync(a, p, 16);\n"
      "}\n"
      "using namespace nvcuda::wmma;\n"
      "__device__ void g() { fragment<accumulator, 16, 16, 16, float> c; fill_fragment(c, 1.0f); }\n";
  const auto out = convert_source("f.cu", in, {});
  EXPECT_THAT(out.text, HasSubstr("namespace tc = rocwmma;\n"));
  EXPECT_THAT(out.text,
              HasSubstr("  rocwmma::fragment<rocwmma::matrix_a, 16, 16, 16, __half, rocwmma::row_major> a;\n"));
  EXPECT_THAT(out.text, HasSubstr("  tc::fragment<tc::accumulator, 16, 16, 16, __half> c;\n"));
  EXPECT_THAT(out.text, HasSubstr("using namespace rocwmma;\n"));
  EXPECT_THAT(out.text, Not(HasSubstr("nvcuda")));
  EXPECT_TRUE(diags(out, "manual_port").empty());
}

TEST(WmmaPort, AnUnsupportedFragmentLeavesTheWholeFileAndSaysWhy) {
  const std::string in =
      "#include <mma.h>\n"
      "#include <cuda_bf16.h>\n"
      "using namespace nvcuda;\n"
      "template <int M> __device__ void f(const half* p, const __nv_bfloat16* q) {\n"
      "  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> ok;\n"
      "  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> tall;\n"
      "  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> bf;\n"
      "  wmma::fragment<wmma::matrix_a, M, 16, 16, half, wmma::row_major> templated;\n"
      "  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> tf;\n"
      "  wmma::load_matrix_sync(ok, p, 16);\n"
      "}\n";
  const auto out = convert_source("f.cu", in, {});
  const auto left = diags(out, "manual_port");
  std::vector<std::string> where;
  for (const auto* d : left) where.push_back(std::to_string(d->line));
  EXPECT_THAT(where, ::testing::ElementsAre("6", "7", "8", "9", "9"))
      << "line 9: its shape (m16n16k8) and wmma::precision";
  EXPECT_THAT(left[0]->message, HasSubstr("m32n8k16 has no rocWMMA block"));
  EXPECT_THAT(left[1]->message, HasSubstr("rocWMMA's bfloat16_t is hip_bfloat16"));
  EXPECT_THAT(left[2]->message, HasSubstr("not made of integer literals or constants"));
  EXPECT_THAT(out.text, HasSubstr("#include <mma.h>\n"));
  EXPECT_THAT(out.text, HasSubstr("\nusing namespace nvcuda;\n"));
  EXPECT_THAT(out.text, HasSubstr("  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> ok;\n"))
      << "all or nothing: the supported fragment stays CUDA too";
  EXPECT_THAT(out.text, Not(HasSubstr("rocwmma")));
  EXPECT_EQ(out.stats.at("idioms_left"), 5);
}

TEST(WmmaPort, LookalikesAreNotTouched) {
  const std::string in =
      "#include <cuda_runtime.h>\n"
      "// nvcuda::wmma is not used here: wmma::fragment<...> in a comment\n"
      "namespace wmma { template <class T, int N> struct fragment { T x[N]; }; }\n"
      "__device__ float f() { wmma::fragment<float, 32> frag{}; return frag.x[0]; }\n";
  const auto out = convert_source("f.cu", in, {});
  EXPECT_EQ(out.text, "#include <hip/hip_runtime.h>\n" + in.substr(in.find('\n') + 1));
  EXPECT_TRUE(diags(out, "manual_port").empty());
  EXPECT_TRUE(diags(out, "ported").empty());
}

TEST(WmmaPort, ASecondPortChangesNothing) {
  const auto once = convert_source("gemm.cu", kSamplesGemm, {});
  const auto twice = convert_source("gemm.cu", once.text, {});
  EXPECT_EQ(twice.text, once.text);
  EXPECT_FALSE(twice.changed);
}

}  // namespace
