// SPDX-License-Identifier: MIT
// convert_source: what is renamed, what is left byte-exact, and what is reported.
#include <r2r/convert/hipify.hpp>
#include <r2r/convert/version.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace {

using r2r::plugins::converter::convert_source;
using r2r::plugins::converter::hipify_options;
using ::testing::HasSubstr;

const r2r::sdk::converter::diagnostic* find_diag(const r2r::plugins::converter::conversion& c,
                                                 std::string_view category, std::string_view name) {
  for (const auto& d : c.diagnostics) {
    if (d.category == category && d.name == name) return &d;
  }
  return nullptr;
}

TEST(HipifySource, RenamesCodeButNotCommentsOrLiterals) {
  const std::string in =
      "// cudaMalloc in a comment\n"
      "const char* s = \"cudaMalloc(&p, n)\";\n"
      "auto r = R\"(cudaFree)\";\n"
      "cudaError_t e = cudaMalloc(&p, n); /* cudaFree */ cudaFree(p);\n";
  const auto out = convert_source("a.cu", in, {});
  EXPECT_FALSE(out.failed);
  EXPECT_TRUE(out.changed);
  EXPECT_EQ(out.text,
            "// cudaMalloc in a comment\n"
            "const char* s = \"cudaMalloc(&p, n)\";\n"
            "auto r = R\"(cudaFree)\";\n"
            "hipError_t e = hipMalloc(&p, n); /* cudaFree */ hipFree(p);\n");
  EXPECT_EQ(out.stats.at("renamed"), 3);
}

TEST(HipifySource, RewritesIncludesKeepingDelimiters) {
  const auto out = convert_source("a.cu",
                                  "#include <cuda_runtime.h>\n#include \"cuda_fp16.h\"\n#include <cub/cub.cuh>\n"
                                  "#include <thrust/sort.h>\n#include <vector>\n",
                                  {});
  EXPECT_EQ(out.text,
            "#include <hip/hip_runtime.h>\n#include \"hip/hip_fp16.h\"\n#include <hipcub/hipcub.hpp>\n"
            "#include <thrust/sort.h>\n#include <vector>\n");
  EXPECT_EQ(out.stats.at("includes_rewritten"), 3);
}

TEST(HipifySource, ProjectHeadersWithCudaNamesAreLeftAlone) {
  hipify_options options;
  options.include_exists = [](std::string_view include, std::string_view) {
    return include == "helper_cuda.h" || include == "<helper_cuda.h>" || include == "cuda_fp16.h" ||
           include == "<cuda_fp16.h>";
  };
  // cuda-samples include their helpers as <helper_cuda.h> from Common/: a helper the project
  // carries is its own in either spelling (it is converted with the rest of the project).
  const auto out = convert_source("src/a.cu", "#include \"helper_cuda.h\"\n#include <helper_cuda.h>\n", options);
  EXPECT_EQ(out.text, "#include \"helper_cuda.h\"\n#include <helper_cuda.h>\n");
  EXPECT_TRUE(out.diagnostics.empty());
  // A toolkit header is CUDA's in the <...> form even when the project has a file of that name.
  const auto toolkit = convert_source("src/a.cu", "#include \"cuda_fp16.h\"\n#include <cuda_fp16.h>\n", options);
  EXPECT_EQ(toolkit.text, "#include \"cuda_fp16.h\"\n#include <hip/hip_fp16.h>\n");
  // Without the helper in the project, the include is reported for a manual port.
  const auto missing = convert_source("src/a.cu", "#include <helper_cuda.h>\n", {});
  ASSERT_EQ(missing.diagnostics.size(), 1u);
  EXPECT_EQ(missing.diagnostics[0].category, "manual_port");
  EXPECT_EQ(missing.diagnostics[0].line, 1);
}

TEST(HipifySource, MembersAndQualifiedNamesAreNotRenamed) {
  const auto out = convert_source(
      "a.cu", "s.cudaMalloc = 1; p->cudaFree(); mylib::cudaMalloc(); ::cudaFree(p); T<int>::cudaFree();\n", {});
  EXPECT_EQ(out.text, "s.cudaMalloc = 1; p->cudaFree(); mylib::cudaMalloc(); ::hipFree(p); T<int>::cudaFree();\n");
}

TEST(HipifySource, CubNamespaceIsRenamedOnlyAsAQualifier) {
  const auto out = convert_source("a.cu", "cub::DeviceReduce::Sum(a); int cub = 3;\n", {});
  EXPECT_EQ(out.text, "hipcub::DeviceReduce::Sum(a); int cub = 3;\n");
}

TEST(HipifySource, UnsupportedNamesAreReportedWithLocationAndHint) {
  const auto out =
      // A partial mask: the idiom port (cuda_idioms_test.cpp) leaves it, so hipify reports it.
      convert_source("k.cu",
                     "#include <hip/hip_runtime.h>\n__global__ void k(float* x) {\n  x[0] = __shfl_down_sync(0xffff, "
                     "x[0], 1);\n}\n",
                     {});
  EXPECT_FALSE(out.changed);
  const auto* d = find_diag(out, "unsupported", "__shfl_down_sync");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->file, "k.cu");
  EXPECT_EQ(d->line, 3);
  EXPECT_EQ(d->column, 10);
  EXPECT_EQ(d->severity, "error");
  EXPECT_THAT(d->hint, HasSubstr("__shfl_down(v, delta)"));
  EXPECT_EQ(out.stats.at("unsupported"), 1);
  EXPECT_EQ(out.stats.at("kernels"), 1);
}

TEST(HipifySource, NamesNewerThanTheTargetRocmAreKeptAndReported) {
  hipify_options options;
  options.target_rocm = *r2r::plugins::converter::parse_version("5.2");
  const auto old_target = convert_source("a.cu", "cudaDeviceSetLimit(cudaLimitStackSize, 1024);\n", options);
  const auto* d = find_diag(old_target, "rocm_too_old", "cudaDeviceSetLimit");
  ASSERT_NE(d, nullptr);
  EXPECT_THAT(d->message, HasSubstr("5.3.0"));
  EXPECT_THAT(old_target.text, HasSubstr("cudaDeviceSetLimit("));
  options.target_rocm = *r2r::plugins::converter::parse_version("6.2");
  const auto new_target = convert_source("a.cu", "cudaDeviceSetLimit(cudaLimitStackSize, 1024);\n", options);
  EXPECT_THAT(new_target.text, HasSubstr("hipDeviceSetLimit("));
  EXPECT_EQ(find_diag(new_target, "rocm_too_old", "cudaDeviceSetLimit"), nullptr);
}

TEST(HipifySource, CudnnNeedsAManualPortToMiopen) {
  const auto out = convert_source("a.cpp", "cudnnHandle_t h; cudnnCreate(&h);\n", {});
  const auto* d = find_diag(out, "manual_port", "cudnnCreate");
  ASSERT_NE(d, nullptr);
  EXPECT_THAT(d->hint, HasSubstr("miopenCreate"));
}

TEST(HipifySource, UnknownCudaLookingNamesAreReportedOncePerFile) {
  hipify_options options;
  const auto out = convert_source("a.cu", "cudaFancyNewApi(); cudaFancyNewApi();\nint cuda_ok = 1;\n", options);
  ASSERT_EQ(out.diagnostics.size(), 1u);
  EXPECT_EQ(out.diagnostics[0].category, "unknown_cuda_name");
  EXPECT_EQ(out.diagnostics[0].severity, "warning");
  EXPECT_EQ(out.stats.at("unknown_names"), 2);
  options.ignore_names.insert("cudaFancyNewApi");
  EXPECT_TRUE(convert_source("a.cu", "cudaFancyNewApi();\n", options).diagnostics.empty());
  options.report_unknown_names = false;
  EXPECT_TRUE(convert_source("a.cu", "cudaOther();\n", options).diagnostics.empty());
}

TEST(HipifySource, CudaArchIsReportedWithTheHipReplacement) {
  const auto out = convert_source("a.cu", "#if __CUDA_ARCH__ >= 800\nint x;\n#endif\n", {});
  const auto* d = find_diag(out, "unknown_cuda_name", "__CUDA_ARCH__");
  ASSERT_NE(d, nullptr);
  EXPECT_THAT(d->hint, HasSubstr("__HIP_DEVICE_COMPILE__"));
}

TEST(HipifySource, DirectivesAreConvertedButErrorTextIsNot) {
  const auto out = convert_source(
      "a.cu", "#ifdef __CUDACC__\n#define CHECK(x) cudaGetLastError()\n#error cudaMalloc is required\n#endif\n", {});
  EXPECT_EQ(out.text, "#ifdef __HIPCC__\n#define CHECK(x) hipGetLastError()\n#error cudaMalloc is required\n#endif\n");
}

TEST(HipifySource, LaunchesAreKept) {
  const std::string in = "k<<<dim3(4), 256, 0, stream>>>(a, b);\nt<float><<<1, 1>>>();\n";
  const auto out = convert_source("a.cu", in, {});
  EXPECT_EQ(out.text, in);
  EXPECT_EQ(out.stats.at("kernel_launches"), 2);
  const auto open = convert_source("a.cu", "k<<<1, 2(x);\n", {});
  EXPECT_NE(find_diag(open, "syntax", "<<<"), nullptr);
}

TEST(HipifySource, DeprecatedAndExperimentalAreNotes) {
  const auto out = convert_source("a.cu", "cudaBindTexture(0, tex, p, n); cudaBindTexture(0, tex, p, n);\n", {});
  const auto* d = find_diag(out, "deprecated", "cudaBindTexture");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, "note");
  EXPECT_EQ(std::count_if(out.diagnostics.begin(), out.diagnostics.end(),
                          [](const auto& x) { return x.category == "deprecated"; }),
            1);
}

TEST(HipifySource, BadSyntaxLeavesTheFileUnchanged) {
  const std::string in = "cudaMalloc(&p, n);\n/* never closed\n";
  const auto out = convert_source("a.cu", in, {});
  EXPECT_TRUE(out.failed);
  EXPECT_EQ(out.text, in);
  ASSERT_EQ(out.diagnostics.size(), 1u);
  EXPECT_EQ(out.diagnostics[0].category, "bad_input");
  EXPECT_EQ(out.diagnostics[0].line, 2);
}

TEST(HipifySource, IdempotentAndDeterministic) {
  const std::string in =
      "#include <cuda_runtime.h>\n#include <cublas_v2.h>\n#include <curand_kernel.h>\n"
      "__global__ void k(curandState* s) { curand_init(1, threadIdx.x, 0, &s[threadIdx.x]); }\n"
      "void f(cublasHandle_t h, cudaStream_t st) { cublasCreate(&h); cublasSetStream(h, st);\n"
      "  cudaMemcpyAsync(0, 0, 0, cudaMemcpyHostToDevice, st); cub::DeviceScan::ExclusiveSum(0, n); }\n";
  const auto once = convert_source("a.cu", in, {});
  const auto twice = convert_source("a.cu", once.text, {});
  EXPECT_TRUE(once.changed);
  EXPECT_FALSE(twice.changed);
  EXPECT_EQ(twice.text, once.text);
  EXPECT_EQ(twice.stats.at("renamed"), 0);
  const auto again = convert_source("a.cu", in, {});
  EXPECT_EQ(again.text, once.text);
  EXPECT_EQ(again.stats, once.stats);
}

}  // namespace

namespace {

TEST(HipifySource, LinesStatCountsNewlinesAndAnUnterminatedLastLine) {
  hipify_options o;
  const auto lines = [&](std::string_view text) { return convert_source("a.cu", text, o).stats.at("lines"); };
  EXPECT_EQ(lines(""), 0);
  EXPECT_EQ(lines("int a;"), 1);
  EXPECT_EQ(lines("int a;\n"), 1);
  EXPECT_EQ(lines("\n\n\n"), 3);
  EXPECT_EQ(lines("int a;\n// cudaMalloc\nint b;"), 3);
  EXPECT_EQ(lines(std::string(5000, '\n') + "x"), 5001);
}

}  // namespace

namespace {

TEST(HipifySource, LooksLikeCudaNameKeepsEveryPrefixRule) {
  using r2r::plugins::converter::looks_like_cuda_name;
  for (const char* yes :
       {"cudaFoo",      "cublasLtMatmul", "curand_init",   "cufftPlan",  "cusparseX",  "cusolverDn", "cudnnConv",
        "nvrtcCompile", "nvtxRangePushA", "cuMemAlloc",    "CUdevice",   "CU_X",       "CUDA_R_16F", "CUDART_VERSION",
        "CUBLAS_OP_N",  "CURAND_RNG",     "CUFFT_R2C",     "CUSPARSE_X", "CUSOLVER_X", "CUDNN_X",    "NVRTC_SUCCESS",
        "CUB_NS",       "__nv_bfloat16",  "__CUDA_ARCH__", "nvcuda"}) {
    EXPECT_TRUE(looks_like_cuda_name(yes)) << yes;
  }
  for (const char* no : {"", "c", "cu", "CU", "CU_", "const", "__global__", "float", "cuda_ok", "cu_ptr", "nvidia",
                         "__nvx", "NV", "nvtx", "cuda", "__CUD", "count", "Cx"}) {
    EXPECT_FALSE(looks_like_cuda_name(no)) << no;
  }
}

}  // namespace
