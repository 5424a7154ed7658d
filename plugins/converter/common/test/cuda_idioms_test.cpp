// SPDX-License-Identifier: MIT
// The CUDA idiom ports (cuda_idioms.hpp) through convert_source: what each idiom becomes, what is
// left and reported, that comments and literals are untouched, and that a second port changes nothing.
#include <r2r/convert/cuda_idioms.hpp>
#include <r2r/convert/hipify.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::converter::convert_source;
using ::testing::HasSubstr;
using ::testing::Not;

const r2r::sdk::converter::diagnostic* find_diag(const r2r::plugins::converter::conversion& c,
                                                 std::string_view category, std::string_view name) {
  for (const auto& d : c.diagnostics) {
    if (d.category == category && d.name == name) return &d;
  }
  return nullptr;
}

std::string body_of(const std::string& text) {  // the text without the helper block
  const std::size_t begin = text.find("#ifndef R2R_CUDA_IDIOMS_H");
  if (begin == std::string::npos) return text;
  const std::string end_marker = "#endif  // R2R_CUDA_IDIOMS_H\n";
  const std::size_t end = text.find(end_marker, begin);
  return text.substr(0, begin) + text.substr(end + end_marker.size());
}

TEST(CudaIdioms, FullMaskShufflesGetWidth32AndKeepAnExplicitWidth) {
  const std::string in =
      "#include <cuda_runtime.h>\n"
      "__global__ void k(float* x) {\n"
      "  float v = x[threadIdx.x];\n"
      "  v += __shfl_down_sync(0xffffffff, v, 16);\n"
      "  v += __shfl_xor_sync(0xFFFFFFFFu, v, 1, 8);\n"
      "  v = __shfl_sync(~0u, v, 0);\n"
      "  v += __shfl_up_sync(0xffffffff, v, 1);\n"
      "  x[threadIdx.x] = v;\n}\n";
  const auto out = convert_source("k.cu", in, {});
  EXPECT_EQ(out.text,
            "#include <hip/hip_runtime.h>\n"
            "__global__ void k(float* x) {\n"
            "  float v = x[threadIdx.x];\n"
            "  v += __shfl_down(v, 16, 32);\n"
            "  v += __shfl_xor(v, 1, 8);\n"
            "  v = __shfl(v, 0, 32);\n"
            "  v += __shfl_up(v, 1, 32);\n"
            "  x[threadIdx.x] = v;\n}\n")
      << "no helper is needed: the file includes the runtime and uses no r2r_ helper";
  EXPECT_EQ(out.stats.at("idioms_ported"), 4);
  const auto* d = find_diag(out, "ported", "__shfl_down_sync");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 4);
  EXPECT_EQ(find_diag(out, "unsupported", "__shfl_down_sync"), nullptr) << "a ported call is not reported as unported";
}

TEST(CudaIdioms, PartialMasksAreLeftAndReportedForTheRewrite) {
  const std::string in =
      "#include <cuda_runtime.h>\n"
      "__global__ void k(float* x, unsigned m) {\n"
      "  float v = __shfl_down_sync(0x0000ffff, x[0], 1);\n"
      "  v += __shfl_down_sync(m, v, 1);\n"
      "  if (__any_sync(__activemask(), v > 0)) x[0] = v;\n}\n";
  const auto out = convert_source("k.cu", in, {});
  EXPECT_THAT(out.text, HasSubstr("__shfl_down_sync(0x0000ffff, x[0], 1)"));
  EXPECT_THAT(out.text, HasSubstr("__shfl_down_sync(m, v, 1)"));
  EXPECT_THAT(out.text, HasSubstr("__any_sync(__activemask(), v > 0)"))
      << "the whole call is left as written when its mask is not full";
  EXPECT_EQ(out.stats.at("idioms_left"), 3);
  const auto* d = find_diag(out, "manual_port", "__shfl_down_sync");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, "error");
  EXPECT_EQ(d->line, 3);
  EXPECT_THAT(d->message, HasSubstr("0x0000ffff"));
}

TEST(CudaIdioms, VotesBecome32LaneHelpersAddedOnceInAGuardedBlock) {
  const std::string in =
      "#pragma once\n"
      "#include <cuda_runtime.h>\n"
      "__device__ unsigned f(int p) {\n"
      "  unsigned b = __ballot_sync(0xffffffff, p);\n"
      "  if (__all_sync(0xffffffff, p) || __any_sync(0xffffffff, !p)) b |= __activemask();\n"
      "  __syncwarp();\n  __syncwarp(0xffffffff);\n"
      "  return b;\n}\n";
  const auto out = convert_source("v.cuh", in, {});
  EXPECT_EQ(out.text.rfind("#pragma once\n#ifndef R2R_CUDA_IDIOMS_H\n", 0), 0u) << out.text;
  EXPECT_EQ(body_of(out.text),
            "#pragma once\n"
            "#include <hip/hip_runtime.h>\n"
            "__device__ unsigned f(int p) {\n"
            "  unsigned b = r2r_ballot32(p);\n"
            "  if (r2r_all32(p) || r2r_any32(!p)) b |= r2r_activemask32();\n"
            "  r2r_syncwarp();\n  r2r_syncwarp();\n"
            "  return b;\n}\n");
  const auto again = convert_source("v.cuh", out.text, {});
  EXPECT_EQ(again.text, out.text) << "a second port changes nothing and adds no second block";
  // Diagnostics below the block move down with it: line 4 of the input is line 4 + block lines.
  const auto lines = static_cast<std::int64_t>(std::count(r2r::plugins::converter::helpers_block().begin(),
                                                          r2r::plugins::converter::helpers_block().end(), '\n'));
  const auto* d = find_diag(out, "ported", "__ballot_sync");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 4 + lines);
}

TEST(CudaIdioms, CudaArchTestsOfDeviceCompilationArePortedAndSmGatesReported) {
  const std::string in =
      "#ifdef __CUDA_ARCH__\nint a;\n#endif\n"
      "#if defined(__CUDA_ARCH__) && !defined( __CUDA_ARCH__ )\nint b;\n#endif\n"
      "#if __CUDA_ARCH__ >= 800\nint c;\n#endif\n";
  const auto out = convert_source("a.cu", in, {});
  EXPECT_EQ(out.text,
            "#ifdef __HIP_DEVICE_COMPILE__\nint a;\n#endif\n"
            "#if defined(__HIP_DEVICE_COMPILE__) && !defined( __HIP_DEVICE_COMPILE__ )\nint b;\n#endif\n"
            "#if __CUDA_ARCH__ >= 800\nint c;\n#endif\n");
  const auto* d = find_diag(out, "manual_port", "__CUDA_ARCH__");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 7);
  EXPECT_THAT(d->hint, HasSubstr("__gfx942__"));
}

TEST(CudaIdioms, ClangCudaModeTestsBecomeHipModeTests) {
  // tiny-cuda-nn's common.h: without the rename, HIP-Clang takes the nvcc-only `#pragma` inside a
  // macro and leaves TCNN_HOST_DEVICE empty and linear_kernel undefined.
  const std::string in =
      "#if defined(__CUDACC_RTC__) || (defined(__clang__) && defined(__CUDA__))\n"
      "#define UNROLL _Pragma(\"unroll\")\n#else\n#define UNROLL #pragma unroll\n#endif\n"
      "#if defined(__NVCC__) || (defined(__clang__) && defined(__CUDA__))\n#define HD __host__ __device__\n#endif\n"
      "#ifdef __CUDA__\nint a; // __CUDA__\n#endif\nconst char* s = \"__CUDA__\";\n";
  const auto out = convert_source("common.h", in, {});
  EXPECT_EQ(
      out.text,
      "#if defined(__CUDACC_RTC__) || (defined(__clang__) && defined(__HIP__))\n"
      "#define UNROLL _Pragma(\"unroll\")\n#else\n#define UNROLL #pragma unroll\n#endif\n"
      "#if defined(__NVCC__) || (defined(__clang__) && defined(__HIP__))\n#define HD __host__ __device__\n#endif\n"
      "#ifdef __HIP__\nint a; // __CUDA__\n#endif\nconst char* s = \"__CUDA__\";\n");
  const auto* d = find_diag(out, "ported", "__CUDA__");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 1);
  EXPECT_EQ(find_diag(out, "unknown_cuda_name", "__CUDA__"), nullptr) << "a ported name is not reported as unknown";
}

TEST(CudaIdioms, ClangCudaModeIsLeftWhereTheFileHasAHipBranch) {
  // Renaming here would make the CUDA branch win over the file's own HIP branch.
  const std::string in = "#if defined(__CUDA__)\nint cuda;\n#elif defined(__HIP__)\nint hip;\n#endif\n";
  const auto out = convert_source("a.h", in, {});
  EXPECT_EQ(out.text, in);
  const auto* d = find_diag(out, "manual_port", "__CUDA__");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 1);
  EXPECT_EQ(d->severity, "warning");
  EXPECT_EQ(find_diag(out, "unknown_cuda_name", "__CUDA__"), nullptr) << "reported once, with the reason";
}

TEST(CudaIdioms, CacheHintsTrapBf16AndRuntimeGuards) {
  const std::string in =
      "#include <cuda_bf16.h>\n"
      "#ifdef __CUDA_RUNTIME_H__\nvoid helper();\n#endif\n"
      "__global__ void k(const float* x, float* y, nv_bfloat16* h) {\n"
      "  float v = __ldcs(x + threadIdx.x) + __ldcg(&x[0]);\n"
      "  __stcs(y + threadIdx.x, v);\n  __stwt(&y[1], v);\n"
      "  if (v < 0) __trap();\n"
      "  h[0] = __float2bfloat16(v);\n}\n";
  const auto out = convert_source("c.cu", in, {});
  EXPECT_EQ(body_of(out.text),
            "#include <hip/hip_bf16.h>\n"
            "#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_H\nvoid helper();\n#endif\n"
            "__global__ void k(const float* x, float* y, __hip_bfloat16* h) {\n"
            "  float v = r2r_load_nt(x + threadIdx.x) + r2r_load(&x[0]);\n"
            "  r2r_store_nt(y + threadIdx.x, v);\n  r2r_store_nt(&y[1], v);\n"
            "  if (v < 0) __builtin_trap();\n"
            "  h[0] = __float2bfloat16(v);\n}\n");
  EXPECT_THAT(out.text, HasSubstr("#include <hip/hip_runtime.h>")) << "the block brings the runtime include";
}

TEST(CudaIdioms, KernelBuiltinsWithoutARuntimeIncludeGetOne) {
  const auto out = convert_source("k.cu", "__global__ void k(int* p) { p[threadIdx.x] = 1; }\n", {});
  EXPECT_THAT(out.text, HasSubstr("#include <hip/hip_runtime.h>"));
  const auto with = convert_source("k.cu", "#include <cuda_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n", {});
  EXPECT_THAT(with.text, Not(HasSubstr("R2R_CUDA_IDIOMS_H")));
  const auto host = convert_source("h.cpp", "int main() { return 0; }\n", {});
  EXPECT_EQ(host.text, "int main() { return 0; }\n") << "plain host code is left alone";
}

TEST(CudaIdioms, CommentsStringsMembersAndNestedCalls) {
  const std::string in =
      "#include <cuda_runtime.h>\n"
      "// __shfl_down_sync(0xffffffff, v, 1) in a comment\n"
      "const char* s = \"__ballot_sync(0xffffffff, p)\";\n"
      "struct W { int __trap() { return 0; } };\n"
      "__device__ float f(float v, W w) {\n"
      "  w.__trap();\n"
      "  return __shfl_down_sync(0xffffffff, __shfl_xor_sync(0xffffffff, v, /* lane, */ 1), 2);\n}\n";
  const auto out = convert_source("n.cu", in, {});
  EXPECT_THAT(out.text, HasSubstr("// __shfl_down_sync(0xffffffff, v, 1) in a comment\n"));
  EXPECT_THAT(out.text, HasSubstr("\"__ballot_sync(0xffffffff, p)\""));
  EXPECT_THAT(out.text, HasSubstr("w.__trap();"));
  EXPECT_THAT(out.text, HasSubstr("return __shfl_down(__shfl_xor(v, /* lane, */ 1, 32), 2, 32);"));
}

TEST(CudaIdioms, MasksSpelledAsMacrosOfTheFileResolve) {
  const std::string in =
      "#include <cuda_runtime.h>\n#define FULL_MASK 0xffffffff\n#define HALF 0xffff\n"
      "__device__ float f(float v) { return __shfl_down_sync(FULL_MASK, v, 1) + __shfl_down_sync(HALF, v, 1); }\n";
  const auto out = convert_source("m.cu", in, {});
  EXPECT_THAT(out.text, HasSubstr("__shfl_down(v, 1, 32) + __shfl_down_sync(HALF, v, 1)"));
}

TEST(CudaIdioms, MaskVariablesNeverWrittenResolve) {
  // The cuda-samples vote idiom: the full mask is a local variable, not a literal or a macro.
  const std::string in =
      "#include <cuda_runtime.h>\n"
      "__global__ void k(unsigned* in, unsigned* out) {\n"
      "  int mask = 0xffffffff;\n"
      "  const unsigned FULL = ~0u;\n"
      "  out[threadIdx.x] = __any_sync(mask, in[threadIdx.x]) + __all_sync(FULL, in[0]);\n}\n";
  const auto out = convert_source("v.cu", in, {});
  EXPECT_THAT(out.text, HasSubstr("out[threadIdx.x] = r2r_any32(in[threadIdx.x]) + r2r_all32(in[0]);"));
  EXPECT_EQ(find_diag(out, "manual_port", "__any_sync"), nullptr);
}

TEST(CudaIdioms, AttackMaskVariablesWrittenOrAmbiguousAreNotTakenAsFull) {
  // Each variable starts as the full mask but may not be one where it is used: a compound or
  // plain assignment, ++, a write through its address, a second declaration with another value, a
  // partial initializer. Every call must be left as written and reported for the rewrite.
  const std::string in =
      "#include <cuda_runtime.h>\n"
      "__device__ void set(unsigned* m);\n"
      "__global__ void k(int* o, int p) {\n"
      "  unsigned a = 0xffffffff; a &= __ballot_sync(0xffffffff, p);\n"
      "  unsigned b = 0xffffffff; if (p) b = 1;\n"
      "  unsigned c = 0xffffffff; c++;\n"
      "  unsigned d = 0xffffffff; set(&d);\n"
      "  { unsigned e = 0xffffffff; o[0] = e; }\n"
      "  { unsigned e = 0xffff; o[1] = __any_sync(e, p); }\n"
      "  unsigned f = (1u << p) - 1;\n"
      "  unsigned g = 0xffffffff; g <<= 1;\n"
      "  o[2] = __any_sync(a, p) + __any_sync(b, p) + __all_sync(c, p) + __any_sync(d, p) + __all_sync(f, p)"
      " + __any_sync(g, p);\n}\n";
  const auto out = convert_source("w.cu", in, {});
  EXPECT_THAT(out.text, HasSubstr("o[1] = __any_sync(e, p);"));
  EXPECT_THAT(out.text, HasSubstr("o[2] = __any_sync(a, p) + __any_sync(b, p) + __all_sync(c, p) + __any_sync(d, p)"
                                  " + __all_sync(f, p) + __any_sync(g, p);"));
  int left = 0;
  for (const auto& d : out.diagnostics) left += d.category == "manual_port" ? 1 : 0;
  EXPECT_EQ(left, 7);
}

TEST(CudaIdioms, Bf16RawTypesAreRenamed) {
  const auto out = convert_source(
      "r.cu",
      "#include <cuda_bf16.h>\n__device__ __nv_bfloat16 f(unsigned short b) { return __nv_bfloat16_raw{b}; }\n"
      "__device__ unsigned short g(__nv_bfloat16 v) { return ((__nv_bfloat16_raw)v).x; }\n"
      "__device__ __nv_bfloat162_raw h(__nv_bfloat162_raw r) { return r; }\n",
      {});
  EXPECT_THAT(out.text, HasSubstr("return __hip_bfloat16_raw{b};"));
  EXPECT_THAT(out.text, HasSubstr("return ((__hip_bfloat16_raw)v).x;"));
  EXPECT_THAT(out.text, HasSubstr("__device__ __hip_bfloat162_raw h(__hip_bfloat162_raw r)"));
  EXPECT_THAT(out.text, Not(HasSubstr("__nv_bfloat16")));
}

TEST(CudaIdioms, UnqualifiedMathClassificationGetsMathH) {
  // llm.c's validate_result calls isfinite in host template code; cuda_runtime.h declares it, HIP's
  // runtime header does not, so the port adds <math.h> once (a guarded block) before the first line.
  const std::string in =
      "#include <cuda_runtime.h>\n#include <float.h>\n"
      "template <class T> int bad(const T* r, int n) { int k = 0; for (int i = 0; i < n; ++i) k += !isfinite(r[i]); "
      "return k; }\n";
  const auto out = convert_source("v.cu", in, {});
  EXPECT_EQ(out.text.find("#ifndef R2R_CUDA_MATH_H"), 0u) << out.text;
  EXPECT_THAT(out.text, HasSubstr("#include <math.h>"));
  const auto* d = find_diag(out, "ported", "isfinite");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, 7) << "the line of the call in the converted file, below the 4-line block";
  EXPECT_EQ(convert_source("v.cu", out.text, {}).text, out.text) << "a second port adds nothing";

  // False positives: already included, qualified, a member, a name in a comment or string.
  for (const std::string other : {"#include <math.h>\nbool f(float x) { return isnan(x); }\n",
                                  "#include <cmath>\nbool f(float x) { return std::isinf(x); }\n",
                                  "struct S { bool isfinite(float); };\nbool f(S s) { return s.isfinite(1.f); }\n",
                                  "// isfinite(x)\nconst char* s = \"isnan(x)\";\n"}) {
    const auto o = convert_source("o.cpp", other, {});
    EXPECT_THAT(o.text, Not(HasSubstr("R2R_CUDA_MATH_H"))) << other;
  }
}

TEST(CudaIdioms, NvtxBecomesRoctx) {
  const auto out = convert_source(
      "n.cpp",
      "#include <nvtx3/nvToolsExt.h>\nvoid f() { nvtxRangePushA(\"step\"); nvtxMarkA(\"m\"); nvtxRangePop(); }\n", {});
  EXPECT_EQ(
      out.text,
      "#include <roctracer/roctx.h>\nvoid f() { roctxRangePushA(\"step\"); roctxMarkA(\"m\"); roctxRangePop(); }\n");
  EXPECT_EQ(find_diag(out, "manual_port", "nvtx3/nvToolsExt.h"), nullptr);
}

}  // namespace
