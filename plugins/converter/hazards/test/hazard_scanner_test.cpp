// SPDX-License-Identifier: MIT
// Each rule fires on the pattern it is for, and not on the nearby correct code.
#include "hazard_scanner.hpp"
#include "hazard_catalog.hpp"
#include "hazards_converter.hpp"

#include <r2r/convert/subprocess.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <set>

namespace {

using r2r::plugins::converter::hazard_rules;
using r2r::plugins::converter::hazards_converter;
using r2r::plugins::converter::scan_hazards;
using ::testing::HasSubstr;

std::multiset<std::string> rules_in(std::string_view text) {
  std::multiset<std::string> out;
  for (const auto& h : scan_hazards("t.cu", text).hazards) out.insert(h.rule);
  return out;
}

std::vector<std::int64_t> lines_of(std::string_view text, std::string_view rule) {
  std::vector<std::int64_t> out;
  for (const auto& h : scan_hazards("t.cu", text).hazards) {
    if (h.rule == rule) out.push_back(h.line);
  }
  return out;
}

TEST(HazardCatalog, EveryRuleHasItsTexts) {
  std::set<std::string_view> ids;
  for (const auto& r : hazard_rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_FALSE(r.why.empty()) << r.id;
    EXPECT_FALSE(r.fix.empty()) << r.id;
    EXPECT_FALSE(r.affects.empty()) << r.id;
    EXPECT_TRUE(r.severity == "error" || r.severity == "warning" || r.severity == "note") << r.id;
  }
}

TEST(Hazards, WarpSizeConstants) {
  EXPECT_EQ(lines_of("#define WARP_SIZE 32\nconstexpr int kWarpSize = 32;\nint warp_size{32};\n"
                     "#define NUM_WARPS 32\nconst int block = 32;\nint w = warpSize;\n",
                     "wave32-constant"),
            (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(Hazards, LaneArithmeticNeedsThreadContext) {
  EXPECT_EQ(lines_of("int lane = threadIdx.x & 31;\nint warp = threadIdx.x >> 5;\nint w2 = tid / 32;\n"
                     "int l2 = laneId % 32;\nint x = y & 31;\nint ok = threadIdx.x % warpSize;\nbool b = a && 31;\n",
                     "lane-mask-arith"),
            (std::vector<std::int64_t>{1, 2, 3, 4}));
}

TEST(Hazards, ReductionsOverThirtyTwoLanes) {
  const std::string text =
      "for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);\n"
      "for (int o = 1; o < 32; o *= 2) { v += __shfl_xor(v, o); }\n"
      "for (int i = 16; i > 0; i--) sum += a[i];\n"
      "for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);\n";
  EXPECT_EQ(lines_of(text, "reduction-from-16"), (std::vector<std::int64_t>{1, 2}));
}

TEST(Hazards, SyncIntrinsicsAndMasks) {
  const std::string text =
      "#define FULL_MASK 0xffffffff\n"
      "v = __shfl_down_sync(FULL_MASK, v, 1);\n"
      "v = __shfl_sync(mask, v, 0);\n"
      "v = __shfl_down(v, 1);\n";
  const auto scan = scan_hazards("t.cu", text);
  EXPECT_EQ(lines_of(text, "warp-sync-intrinsic"), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(lines_of(text, "full-mask-32"), (std::vector<std::int64_t>{1, 2}));
  for (const auto& h : scan.hazards) {
    if (h.rule == "warp-sync-intrinsic" && h.line == 2) {
      EXPECT_THAT(h.message, HasSubstr("0xffffffff"));
      EXPECT_EQ(h.excerpt, "v = __shfl_down_sync(FULL_MASK, v, 1);");
    }
  }
}

TEST(Hazards, BallotsKeptInThirtyTwoBits) {
  const std::string text =
      "unsigned int b = __ballot_sync(0xffffffff, p);\n"
      "int n = __popc(__ballot_sync(0xffffffff, p));\n"
      "uint32_t c = (uint32_t)__ballot(p);\n"
      "unsigned long long ok = __ballot(p);\n"
      "int m = __popcll(__ballot(p));\n";
  EXPECT_EQ(lines_of(text, "ballot-32bit"), (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(Hazards, ActiveMaskAndSyncwarp) {
  EXPECT_EQ(rules_in("unsigned m = __activemask();\n__syncwarp();\n"),
            (std::multiset<std::string>{"activemask", "ballot-32bit", "syncwarp"}));
}

TEST(Hazards, InlinePtxAndItsFeatures) {
  const std::string text =
      "asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
      "asm(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1}, {%2}, {%3}, {%4};\\n\" : : );\n"
      "asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\\n\" :: \"r\"(s), \"l\"(g));\n"
      "asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global [%0], [%1];\" :: );\n"
      "__asm__ __volatile__(\"rdtsc\" : \"=a\"(lo), \"=d\"(hi));\n";
  const auto scan = scan_hazards("t.cu", text);
  ASSERT_EQ(scan.hazards.size(), 4u);
  EXPECT_EQ(scan.hazards[0].rule, "inline-ptx");
  EXPECT_THAT(scan.hazards[0].message, HasSubstr("mov.u32"));
  EXPECT_EQ(scan.hazards[1].rule, "mma-ptx");
  EXPECT_EQ(scan.hazards[2].rule, "cp-async");
  EXPECT_EQ(scan.hazards[3].rule, "tma");
  for (const auto& h : scan.hazards) EXPECT_EQ(h.severity, "error");
}

TEST(Hazards, CudaArchChecks) {
  const std::string text =
      "#if __CUDA_ARCH__ >= 800\nint a;\n#endif\n#ifdef __CUDA_ARCH__\nint b;\n#endif\n"
      "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700\n#endif\n#if __HIP_DEVICE_COMPILE__\n#endif\n";
  EXPECT_EQ(lines_of(text, "cuda-arch-check"), (std::vector<std::int64_t>{1, 4, 7}));
}

TEST(Hazards, CudaVersionChecks) {
  // tiny-cuda-nn's common.cu asserts the nvcc version in code; fmt probes it with defined().
  const std::string text =
      "static_assert(\n  __CUDACC_VER_MAJOR__ > 10 || (__CUDACC_VER_MAJOR__ == 10 && __CUDACC_VER_MINOR__ >= 2),\n"
      "  \"needs CUDA 10.2\");\n#if defined(__CUDACC_VER_MAJOR__)\n#define V (__CUDACC_VER_MAJOR__ * 100)\n"
      "#elif __CUDACC_VER_BUILD__ > 0\n#endif\n#ifdef __CUDACC_VER_MAJOR__\n#endif\n";
  EXPECT_EQ(lines_of(text, "cuda-version-check"), (std::vector<std::int64_t>{2, 6})) << "one hazard per rule and line";
  const auto scan = scan_hazards("common.cu", text);
  ASSERT_FALSE(scan.hazards.empty());
  EXPECT_EQ(scan.hazards[0].severity, "error");
  EXPECT_THAT(scan.hazards[0].fix, HasSubstr("HIP_VERSION_MAJOR"));
}

TEST(Hazards, DevicePointerArithmetic) {
  // tiny-cuda-nn's gpu_memory.h maps memory at a byte offset from a reserved CUdeviceptr.
  const std::string text =
      "struct Arena {\n  hipDeviceptr_t m_base = {};\n  size_t m_size = 0;\n"
      "  void grow(size_t n) {\n    hipMemMap(m_base + m_size, n, 0, h, 0);\n    m_size += n;\n"
      "    uint8_t* p = (uint8_t*)m_base + 1;\n    if (m_base) free(m_base);\n    q = 4 - m_base;\n  }\n};\n";
  EXPECT_EQ(lines_of(text, "device-pointer-arithmetic"), (std::vector<std::int64_t>{5, 9}));
  EXPECT_TRUE(lines_of("size_t base = 0;\nvoid* p = base + 1;\n", "device-pointer-arithmetic").empty());
}

TEST(Hazards, WmmaCpAsyncTmaAndClusters) {
  const std::string text =
      "#include <mma.h>\nusing namespace nvcuda;\nwmma::fragment<wmma::matrix_a, 16, 16, 16, half> a;\n"
      "__pipeline_memcpy_async(dst, src, 16);\nCUtensorMap map;\n__global__ void __cluster_dims__(2, 1, 1) k();\n";
  EXPECT_EQ(rules_in(text), (std::multiset<std::string>{"wmma", "wmma", "wmma", "cp-async", "tma", "tma"}));
}

TEST(Hazards, StaticSharedMemoryAbove64KiB) {
  const std::string text =
      "#define TILE 128\n"
      "constexpr int kRows = 64;\n"
      "__global__ void big() { __shared__ float a[TILE * TILE]; }\n"     // 64 KiB exactly: fine
      "__global__ void bigger() { __shared__ double b[TILE][TILE]; }\n"  // 128 KiB
      "__global__ void split() {\n  __shared__ float c[kRows][160];\n  __shared__ float4 d[1024];\n}\n"  // 40+16 KiB
      "__global__ void sum() {\n  __shared__ float e[10000];\n  __shared__ float f[10000];\n}\n"         // 78 KiB total
      "__global__ void dyn() { extern __shared__ float g[]; }\n";
  const auto scan = scan_hazards("t.cu", text);
  std::vector<std::int64_t> lines;
  for (const auto& h : scan.hazards) {
    if (h.rule == "shared-memory-64k") lines.push_back(h.line);
  }
  EXPECT_EQ(lines, (std::vector<std::int64_t>{4, 10}));
  for (const auto& h : scan.hazards) {
    if (h.line == 10) {
      EXPECT_THAT(h.message, HasSubstr("80000 bytes"));
    }
  }
}

TEST(Hazards, DynamicSharedMemoryLimits) {
  const std::string text =
      "cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);\n"
      "hipFuncSetAttribute(reinterpret_cast<const void*>(k), hipFuncAttributeMaxDynamicSharedMemorySize, bytes);\n"
      "cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 32768);\n"
      "k<<<grid, block, 100000, stream>>>(x);\n"
      "k<<<grid, block, 4096>>>(x);\n";
  const auto scan = scan_hazards("t.cu", text);
  ASSERT_EQ(scan.hazards.size(), 3u);
  EXPECT_EQ(scan.hazards[0].rule, "shared-memory-64k");
  EXPECT_THAT(scan.hazards[0].message, HasSubstr("98304 bytes"));
  EXPECT_EQ(scan.hazards[1].rule, "dynamic-shared-memory");
  EXPECT_EQ(scan.hazards[2].rule, "shared-memory-64k");
  EXPECT_EQ(scan.hazards[2].line, 4);
}

TEST(Hazards, TextureAndSurfaceReferences) {
  const std::string text =
      "texture<float, 1, cudaReadModeElementType> tex;\n"
      "cudaBindTexture(0, tex, d, n);\n"
      "float v = tex1Dfetch(tex, i);\n"
      "float w = tex1Dfetch<float>(obj, i);\n"
      "surface<void, 2> surf;\n";
  EXPECT_EQ(lines_of(text, "texture-reference"), (std::vector<std::int64_t>{1, 2, 3, 5}));
}

TEST(Hazards, CooperativeGroupTiles) {
  const std::string text =
      "auto t32 = cg::tiled_partition<32>(block);\n"
      "thread_block_tile<128> big = tiled_partition<128>(block);\n"
      "auto t16 = cg::tiled_partition<16>(block);\n"
      "auto act = cg::coalesced_threads();\n";
  const auto r = rules_in(text);
  EXPECT_EQ(r.count("cg-tile-32"), 1u);
  EXPECT_EQ(r.count("cg-tile"), 1u) << "one per line";
  EXPECT_EQ(r.count("coalesced-threads"), 1u);
  EXPECT_EQ(lines_of(text, "cg-tile"), (std::vector<std::int64_t>{2}));
}

TEST(Hazards, PredicatePartitionsOfATileHaveNoHipCounterpart) {
  // cuda-samples binaryPartitionCG: HIP 6.4 fails on the call, so it must be named where it is.
  const std::string text =
      "auto t32 = cg::tiled_partition<32>(cta);\n"
      "auto sub = cg::binary_partition(t32, elem & 1);\n"
      "auto lab = cooperative_groups::labeled_partition(t32, key);\n"
      "int binary_partition = 3;\n"
      "s.binary_partition;\n";
  EXPECT_EQ(lines_of(text, "cg-partition"), (std::vector<std::int64_t>{2, 3}))
      << "a variable or member of that name is not the call";
}

TEST(Hazards, DevicePropertyFieldsOnlyWithDeviceProps) {
  const std::string with =
      "cudaDeviceProp prop;\ncudaGetDeviceProperties(&prop, 0);\nint a = prop.major;\n"
      "size_t s = prop.sharedMemPerBlockOptin;\nint l2 = p->persistingL2CacheMaxSize;\n";
  EXPECT_EQ(lines_of(with, "device-prop-field"), (std::vector<std::int64_t>{4, 5}));
  EXPECT_TRUE(lines_of("struct S { int uuid; } s; int u = s.uuid;\n", "device-prop-field").empty());
}

TEST(Hazards, LaunchBoundsSecondArgument) {
  EXPECT_EQ(lines_of("__global__ void __launch_bounds__(256, 2) k();\n__global__ void __launch_bounds__(256) j();\n",
                     "launch-bounds"),
            (std::vector<std::int64_t>{1}));
}

TEST(Hazards, CommentsStringsAndIfZeroAreNotScanned) {
  const std::string text =
      "// asm(\"mov.u32 %0, %%laneid;\"); __syncwarp(); #define WARP_SIZE 32\n"
      "const char* s = \"__activemask() texture<float> tex\";\n"
      "#if 0\n__syncwarp();\nThis doesn't matter\n#endif\n";
  EXPECT_TRUE(scan_hazards("t.cu", text).hazards.empty());
}

TEST(Hazards, BadInputIsADiagnostic) {
  const auto scan = scan_hazards("t.cu", "int a;\n/* never closed");
  EXPECT_TRUE(scan.failed);
  ASSERT_EQ(scan.diagnostics.size(), 1u);
  EXPECT_EQ(scan.diagnostics[0].category, "bad_input");
}

TEST(HazardsPlugin, FiltersBySeverityAndRuleAndSkipsOtherFiles) {
  r2r::sdk::testing::fake_host host;
  hazards_converter::config cfg;
  cfg.min_severity = "warning";
  cfg.disabled_rules = {"syncwarp"};
  hazards_converter plugin(cfg, host.sdk_host());
  auto ctx = host.context();
  const auto request = nlohmann::json{{"files",
                                       {{{"path", "k.cu"},
                                         {"text",
                                          "__global__ void __launch_bounds__(256, 2) k() { __syncwarp(); "
                                          "asm(\"trap;\"); }\n"}},
                                        {{"path", "README.md"}, {"text", "__syncwarp"}},
                                        {{"path", "bad.cu"}, {"text", "\"open\n"}}}}}
                           .get<r2r::sdk::converter::convert_request>();
  const auto r = plugin.convert(request, ctx);
  ASSERT_EQ(r.hazards.size(), 1u);
  EXPECT_EQ(r.hazards[0].rule, "inline-ptx");
  EXPECT_EQ(r.files[0].status, "unchanged");
  EXPECT_FALSE(r.files[0].text);
  EXPECT_EQ(r.files[1].status, "skipped");
  EXPECT_EQ(r.files[2].status, "error");
  EXPECT_EQ(r.summary.at("hazards"), 1);
  cfg.disabled_rules = {"no-such-rule"};
  EXPECT_THROW(hazards_converter(cfg, host.sdk_host()), r2r::sdk::invalid_argument);
}

}  // namespace

namespace {

// The device-prop-field list is checked against the HIP headers installed here (HIP 5.2.3 on
// Debian 12): every listed field is absent from hipDeviceProp_t, and the trait used to check it
// does see fields that exist.
TEST(HazardCatalogHip, ListedDevicePropFieldsAreAbsentFromTheInstalledHip) {
  const auto hipcc = r2r::plugins::converter::find_program("hipcc", {"/opt/rocm/bin"});
  ASSERT_TRUE(hipcc) << "hipcc is required by this test; run scripts/bootstrap.sh";
  std::string source = "#include <hip/hip_runtime.h>\n#include <type_traits>\n";
  const auto check = [&source](std::string_view field, bool present) {
    const std::string f(field);
    source += "template <class T, class = void> struct has_" + f + " : std::false_type {};\n";
    source += "template <class T> struct has_" + f + "<T, std::void_t<decltype(&T::" + f + ")>> : std::true_type {};\n";
    source += "static_assert(" + std::string(present ? "" : "!") + "has_" + f + "<hipDeviceProp_t>::value, \"" + f +
              (present ? " should exist" : " exists in hipDeviceProp_t; remove it from the list") + "\");\n";
  };
  for (const auto field : r2r::plugins::converter::missing_device_prop_fields()) check(field, false);
  for (const char* field : {"major", "sharedMemPerBlock", "warpSize", "maxSharedMemoryPerMultiProcessor"}) {
    check(field, true);
  }
  const auto dir = std::filesystem::temp_directory_path() / ("r2r-prop-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "props.hip") << source;
  r2r::plugins::converter::process_options o;
  o.argv = {*hipcc, "--offload-arch=gfx90a", "-std=c++17", "-fsyntax-only", "-x", "hip", (dir / "props.hip").string()};
  const auto r = r2r::plugins::converter::run_process(o);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(r.ok()) << r.start_error << r.err << r.out;
}

}  // namespace
