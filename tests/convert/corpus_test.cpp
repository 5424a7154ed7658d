// SPDX-License-Identifier: MIT
// `repo2rocm port` on the project's CUDA test corpus (tests/convert/corpus), run as a process with
// the real plugins and the real hipcc:
//   * the converted tree matches tests/convert/golden/tree byte for byte, and every diagnostic,
//     hazard and build result matches tests/convert/golden/findings.txt;
//   * every hazard planted in the corpus (a "HAZARD: rule ..." comment on its line) is found, and
//     no hazard is reported anywhere else;
//   * programs without unsupported features compile for gfx90a; gfx942, unknown to this hipcc, is
//     never reported as passed; patch.diff turns the source into the converted tree;
//   * conversion is deterministic and idempotent; bad files are reported one by one.
// R2R_UPDATE_GOLDEN=1 rewrites the golden files from the current output (review the diff!).
// The golden files are the converter's own output, so they are also checked against oracles that
// do not come from the converter (GoldenOracle tests): the host's hipcc compiles every converted
// standalone file with the outcome listed here by hand, the library-mapping files hold the HIP
// identifiers and includes listed here by hand, and findings.txt holds the lines listed here.
#include "../unit/test_support.hpp"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

fs::path source_dir(const std::string& rel) {
  return r2r::test::env_path("R2R_SOURCE_DIR") / rel;
}
std::string exe() {
  return (r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string();
}
std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}
bool update_golden() {
  const char* v = std::getenv("R2R_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}
std::vector<std::string> files_under(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), root).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// One line per finding, sorted: the golden findings format.
std::string findings(const json& report) {
  std::vector<std::string> lines;
  for (const auto& f : report.at("files")) {
    lines.push_back("F " + f.at("path").get<std::string>() + " " + f.at("status").get<std::string>());
    for (const auto& d : f.at("diagnostics")) {
      lines.push_back("D " + d.at("file").get<std::string>() + ":" + std::to_string(d.at("line").get<int>()) + ":" +
                      std::to_string(d.at("column").get<int>()) + " " + d.at("severity").get<std::string>() + " " +
                      d.at("category").get<std::string>() + " " + d.value("name", std::string()));
    }
  }
  for (const auto& h : report.at("hazards")) {
    lines.push_back("H " + h.at("file").get<std::string>() + ":" + std::to_string(h.at("line").get<int>()) + ":" +
                    std::to_string(h.at("column").get<int>()) + " " + h.at("severity").get<std::string>() + " " +
                    h.at("rule").get<std::string>());
  }
  for (const auto& b : report.at("builds")) {
    lines.push_back("B " + b.at("file").get<std::string>() + " " + b.at("arch").get<std::string>() + " " +
                    b.at("status").get<std::string>() + " " + b.at("class").get<std::string>());
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

/// (file, line, rule) of every "HAZARD: rule ..." comment in the corpus.
std::set<std::tuple<std::string, int, std::string>> planted_hazards(const fs::path& corpus,
                                                                    const std::set<std::string>& known) {
  std::set<std::tuple<std::string, int, std::string>> out;
  for (const auto& rel : files_under(corpus)) {
    std::istringstream in(read(corpus / rel));
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      const auto at = line.find("HAZARD:");
      if (at == std::string::npos) continue;
      std::istringstream words(line.substr(at + 7));
      std::string word;
      while (words >> word) {
        if (known.count(word) != 0) out.emplace(rel, number, word);
      }
    }
  }
  return out;
}

json normalized(json j) {
  // Timing and the output location differ between two otherwise identical runs.
  if (j.is_object()) {
    for (const char* key : {"seconds", "out", "source", "pipeline"}) j.erase(key);
    for (auto& [key, value] : j.items()) value = normalized(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = normalized(value);
  }
  return j;
}

class Corpus : public ::testing::Test {
 protected:
  r2r::test::temp_dir tmp_;
};

TEST_F(Corpus, PortMatchesGoldenFindsEveryPlantedHazardAndCompiles) {
  const fs::path corpus = source_dir("tests/convert/corpus");
  const fs::path golden = source_dir("tests/convert/golden");
  const fs::path out = tmp_.path() / "port";
  const auto r = r2r::test::run_process(exe() + " port " + corpus.string() + " --out " + out.string() +
                                        " --arch gfx90a,gfx942 --rocm 5.2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json brief = json::parse(r.out);
  EXPECT_TRUE(brief.at("ok").get<bool>());
  const json report = json::parse(read(out / "convert.json"));

  // Golden tree and findings.
  const auto converted = files_under(out / "tree");
  EXPECT_EQ(converted, files_under(corpus)) << "the tree holds every source file";
  if (update_golden()) {
    fs::remove_all(golden / "tree");
    for (const auto& rel : converted) write(golden / "tree" / rel, read(out / "tree" / rel));
    write(golden / "findings.txt", findings(report));
  }
  EXPECT_EQ(files_under(golden / "tree"), converted);
  for (const auto& rel : converted) {
    EXPECT_EQ(read(out / "tree" / rel), read(golden / "tree" / rel)) << rel << " differs from its golden output";
  }
  EXPECT_EQ(findings(report), read(golden / "findings.txt"));

  // Every planted hazard is found; none is reported where nothing was planted.
  std::set<std::string> rules;
  std::set<std::tuple<std::string, int, std::string>> found;
  for (const auto& h : report.at("hazards")) {
    rules.insert(h.at("rule").get<std::string>());
    found.emplace(h.at("file").get<std::string>(), h.at("line").get<int>(), h.at("rule").get<std::string>());
    EXPECT_FALSE(h.at("why").get<std::string>().empty());
    EXPECT_FALSE(h.at("fix").get<std::string>().empty());
  }
  const std::set<std::string> all_rules{"wave32-constant",
                                        "lane-mask-arith",
                                        "reduction-from-16",
                                        "full-mask-32",
                                        "warp-sync-intrinsic",
                                        "ballot-32bit",
                                        "activemask",
                                        "syncwarp",
                                        "inline-ptx",
                                        "wmma",
                                        "mma-ptx",
                                        "cp-async",
                                        "tma",
                                        "cuda-arch-check",
                                        "shared-memory-64k",
                                        "dynamic-shared-memory",
                                        "texture-reference",
                                        "cg-tile",
                                        "cg-tile-32",
                                        "coalesced-threads",
                                        "device-prop-field",
                                        "launch-bounds"};
  // Markers are read from the converted tree: the idiom port may add a helper block above them.
  const auto planted = planted_hazards(out / "tree", all_rules);
  // 37: the idiom port resolves the full-mask shuffle, vote and __CUDA_ARCH__ device-test hazards.
  EXPECT_GE(planted.size(), 37u) << "the corpus plants hazards of every family";
  for (const auto& p : planted) {
    EXPECT_TRUE(found.count(p)) << "planted hazard not found: " << std::get<0>(p) << ":" << std::get<1>(p) << " "
                                << std::get<2>(p);
  }
  for (const auto& f : found) {
    EXPECT_TRUE(planted.count(f)) << "hazard reported where none was planted: " << std::get<0>(f) << ":"
                                  << std::get<1>(f) << " " << std::get<2>(f);
  }

  // Build results: what compiles here passes for gfx90a; gfx942 is never reported as passed.
  const std::map<std::string, std::string> expected_gfx90a{
      {"runtime_api/vector_add.cu", "passed"},
      {"kernels_launches/saxpy_templates.cu", "passed"},
      {"templates_macros/reduce_sum.cu", "passed"},
      {"shared_memory/transpose.cu", "passed"},
      {"warp_intrinsics/warp_vote.cu", "passed"},
      {"libraries/curand_pi.cu", "passed"},
      {"comments_strings/names_in_text.cu", "passed"},
      {"libraries/cublas_sgemm.cu", "checked_in_container"},  // hipBLAS is not packaged for Debian 12
      {"libraries/cufft_c2c.cu", "checked_in_container"},     // hipFFT neither
      {"warp_intrinsics/warp_reduce_sync.cu", "passed"},      // *_sync intrinsics: ported (cuda_idioms)
      {"hazards/nvidia_features.cu", "failed"},               // PTX, WMMA, cp.async: reported, not compiled
  };
  std::map<std::string, std::string> gfx90a;
  for (const auto& b : report.at("builds")) {
    const std::string file = b.at("file").get<std::string>();
    if (b.at("arch") == "gfx90a") gfx90a[file] = b.at("status").get<std::string>();
    if (b.at("arch") == "gfx942") {
      EXPECT_EQ(b.at("status"), "not_checkable_here") << file;
      EXPECT_EQ(b.at("class"), "target_unknown") << file;
    }
    if (b.at("status") == "passed") {
      EXPECT_EQ(b.at("arch"), "gfx90a");
    }
  }
  EXPECT_EQ(gfx90a, expected_gfx90a);

  // patch.diff turns a copy of the source into the converted tree.
  const fs::path copy = tmp_.path() / "copy";
  fs::copy(corpus, copy, fs::copy_options::recursive);
  const auto applied =
      r2r::test::run_process("cd " + copy.string() + " && patch -s -p1 < " + (out / "patch.diff").string());
  ASSERT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  for (const auto& rel : converted) EXPECT_EQ(read(copy / rel), read(out / "tree" / rel)) << rel;
  // The source itself was not touched.
  EXPECT_EQ(read(corpus / "runtime_api/vector_add.cu").find("hipMalloc"), std::string::npos);
}

TEST_F(Corpus, ConversionIsDeterministicAndIdempotent) {
  const std::string corpus = source_dir("tests/convert/corpus").string();
  const std::string pipeline = " --pipeline " + source_dir("tests/convert/port_test_pipeline.json").string();
  const fs::path a = tmp_.path() / "a";
  const fs::path b = tmp_.path() / "b";
  const fs::path c = tmp_.path() / "c";
  ASSERT_EQ(r2r::test::run_process(exe() + " port " + corpus + " --out " + a.string() + pipeline).exit_code, 0);
  ASSERT_EQ(r2r::test::run_process(exe() + " port " + corpus + " --out " + b.string() + pipeline).exit_code, 0);
  EXPECT_EQ(read(a / "patch.diff"), read(b / "patch.diff"));
  EXPECT_EQ(normalized(json::parse(read(a / "convert.json"))), normalized(json::parse(read(b / "convert.json"))));
  for (const auto& rel : files_under(a / "tree")) EXPECT_EQ(read(a / "tree" / rel), read(b / "tree" / rel)) << rel;

  // Converting the converted tree changes nothing.
  ASSERT_EQ(
      r2r::test::run_process(exe() + " port " + (a / "tree").string() + " --out " + c.string() + pipeline).exit_code,
      0);
  for (const auto& rel : files_under(a / "tree")) EXPECT_EQ(read(c / "tree" / rel), read(a / "tree" / rel)) << rel;
  EXPECT_EQ(read(c / "patch.diff"), "");
  const json again = json::parse(read(c / "convert.json"));
  EXPECT_EQ(again.at("summary").value("renamed", -1), 0);
  EXPECT_EQ(again.at("summary").value("includes_rewritten", -1), 0);
  EXPECT_EQ(again.at("summary").value("converted", -1), 0);
}

TEST_F(Corpus, BadInputIsReportedPerFileAndDoesNotStopTheRun) {
  const fs::path src = tmp_.path() / "bad";
  write(src / "good.cu", "#include <cuda_runtime.h>\nvoid f(float* p) { cudaFree(p); }\n");
  write(src / "binary.cu", std::string("\x7f"
                                       "ELF\x02\x01\x01\0\0\0cudaMalloc",
                                       19));
  write(src / "latin1.cu", "// caf\xe9\nvoid g(float* p) { cudaFree(p); }\n");
  write(src / "open_comment.cu", "void h(float* p) { cudaFree(p); }\n/* never closed\n");
  write(src / "open_string.cu", "const char* s = \"never closed;\nvoid k(float* p) { cudaFree(p); }\n");
  write(src / "too_big.cu", std::string(70000, ' ') + "\nvoid m(float* p) { cudaFree(p); }\n");
  write(src / "data.bin", std::string("\0\1\2\3", 4));
  const fs::path out = tmp_.path() / "out";
  const auto r = r2r::test::run_process(exe() + " port " + src.string() + " --out " + out.string() + " --pipeline " +
                                        source_dir("tests/convert/port_test_pipeline.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("with errors"));
  const json report = json::parse(read(out / "convert.json"));
  std::map<std::string, json> by_path;
  for (const auto& f : report.at("files")) by_path[f.at("path").get<std::string>()] = f;
  EXPECT_EQ(by_path.count("data.bin"), 0u) << "files no converter handles are not listed";
  EXPECT_EQ(by_path.at("good.cu").at("status"), "converted");
  EXPECT_EQ(read(out / "tree" / "good.cu"), "#include <hip/hip_runtime.h>\nvoid f(float* p) { hipFree(p); }\n");
  const std::map<std::string, std::string> expected{{"binary.cu", "file contains a NUL byte"},
                                                    {"latin1.cu", "expected UTF-8 text"},
                                                    {"open_comment.cu", "unterminated /* comment"},
                                                    {"open_string.cu", "unterminated string literal"},
                                                    {"too_big.cu", "above the limit of 65536"}};
  for (const auto& [path, message] : expected) {
    const json& f = by_path.at(path);
    EXPECT_EQ(f.at("status"), "error") << path;
    ASSERT_FALSE(f.at("diagnostics").empty()) << path;
    const json& d = f.at("diagnostics").at(0);
    EXPECT_EQ(d.at("category"), "bad_input") << path;
    EXPECT_THAT(d.at("message").get<std::string>(), HasSubstr(message)) << path;
    EXPECT_EQ(read(out / "tree" / path), read(src / path)) << path << " is copied unchanged";
  }
  EXPECT_EQ(report.at("summary").at("error"), 5);
}

// ---- Oracles for the golden files that do not come from the converter ----

struct compile_expectation {
  bool compiles;
  std::string says;  // for a failure: text hipcc's output must contain
  std::string why;   // for a failure: why it cannot compile here
};

/// Every standalone source file of the corpus and what `hipcc --offload-arch=gfx90a` does with its
/// golden conversion on this host (Debian 12, HIP 5.2). Written by hand from the sources and the
/// host's packages; a corpus file missing here fails the test.
const std::map<std::string, compile_expectation>& expected_compiles() {
  static const std::map<std::string, compile_expectation> table{
      {"runtime_api/vector_add.cu", {true, "", ""}},
      {"kernels_launches/saxpy_templates.cu", {true, "", ""}},
      {"templates_macros/reduce_sum.cu", {true, "", ""}},  // with its header templates_macros/check.cuh
      {"shared_memory/transpose.cu", {true, "", ""}},
      {"warp_intrinsics/warp_vote.cu", {true, "", ""}},
      {"libraries/curand_pi.cu", {true, "", ""}},  // hipRAND is packaged (libhiprand-dev)
      {"comments_strings/names_in_text.cu", {true, "", ""}},
      {"libraries/cublas_sgemm.cu",
       {false, "'hipblas/hipblas.h' file not found", "hipBLAS is not packaged for Debian 12 (checked in a container)"}},
      {"libraries/cufft_c2c.cu",
       {false, "'hipfft/hipfft.h' file not found", "hipFFT is not packaged for Debian 12 (checked in a container)"}},
      {"warp_intrinsics/warp_reduce_sync.cu", {true, "", ""}},  // its full-mask *_sync calls are ported
      {"hazards/nvidia_features.cu",
       {false, "'cuda_pipeline.h' file not found",
        "cp.async, WMMA, PTX and TMA have no HIP form; reported, not ported"}},
  };
  return table;
}

bool is_standalone_source(const std::string& rel) {
  return rel.size() > 3 && rel.compare(rel.size() - 3, 3, ".cu") == 0;
}

TEST(GoldenOracle, EveryConvertedStandaloneFileCompilesWithTheHostHipccAsListed) {
  if (r2r::test::run_process("command -v hipcc").exit_code != 0) GTEST_SKIP() << "hipcc is not installed";
  const fs::path corpus = source_dir("tests/convert/corpus");
  const fs::path tree = source_dir("tests/convert/golden/tree");
  r2r::test::temp_dir tmp;
  std::set<std::string> seen;
  for (const auto& rel : files_under(corpus)) {
    if (!is_standalone_source(rel)) continue;
    seen.insert(rel);
    const auto it = expected_compiles().find(rel);
    if (it == expected_compiles().end()) {
      ADD_FAILURE() << rel << " is not listed in expected_compiles(): add its expected hipcc outcome (and why)";
      continue;
    }
    // -std=c++17: nvcc's default language level since CUDA 11 (the corpus uses digit separators).
    const auto r = r2r::test::run_process("hipcc --offload-arch=gfx90a -std=c++17 -ferror-limit=0 -c -o " +
                                          (tmp.path() / "a.o").string() + " " + (tree / rel).string());
    const std::string log = r.out + r.err;
    const compile_expectation& e = it->second;
    if (e.compiles) {
      EXPECT_EQ(r.exit_code, 0) << rel << " should compile for gfx90a:\n" << log;
    } else {
      EXPECT_NE(r.exit_code, 0) << rel << " compiled, but is listed as failing here (" << e.why << ")";
      EXPECT_THAT(log, HasSubstr(e.says)) << rel << " fails for another reason than listed (" << e.why << ")";
    }
  }
  for (const auto& [rel, e] : expected_compiles()) EXPECT_TRUE(seen.count(rel)) << rel << " is not in the corpus";
}

TEST(GoldenOracle, LibraryMappingFilesHoldTheHipIdentifiersListedByHand) {
  struct expectation {
    std::vector<std::string> must;
    std::vector<std::string> must_not;
  };
  const std::map<std::string, expectation> table{
      {"libraries/curand_pi.cu",
       {{"#include <hip/hip_runtime.h>", "#include <hiprand/hiprand.h>", "#include <hiprand/hiprand_kernel.h>",
         "hiprandState* states", "hiprand_init(seed, id, 0, &states[id]);", "hiprand_uniform(&local)",
         "hiprandGenerator_t gen;", "hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_DEFAULT)",
         "HIPRAND_STATUS_SUCCESS", "hiprandSetPseudoRandomGeneratorSeed(gen, 42ULL);",
         "hiprandGenerateUniform(gen, uniform, 1024);", "hiprandDestroyGenerator(gen);", "hipMemcpyDeviceToHost"},
        {"curandState", "curand_init", "curand_uniform", "curandGenerator_t", "curandCreateGenerator", "CURAND_",
         "<curand.h>", "<curand_kernel.h>", "cuda_runtime.h", "cudaMalloc", "cudaMemcpy"}}},
      {"libraries/cublas_sgemm.cu",
       {{"#include <hipblas/hipblas.h>", "#include <hip/hip_runtime.h>", "hipStream_t stream",
         "hipblasHandle_t handle;", "hipblasCreate(&handle) != HIPBLAS_STATUS_SUCCESS",
         "hipblasSetStream(handle, stream);", "std::printf(\"cublasSgemm failed with %d\\n\"",
         "const hipblasStatus_t status", "hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_T,", "hipblasDestroy(handle);"},
        {"cublasHandle_t", "cublasCreate(", "cublasSetStream", "cublasSgemm(handle", "cublasDestroy", "CUBLAS_",
         "cublas_v2.h", "cudaStream_t"}}},
      {"libraries/cufft_c2c.cu",
       {{"#include <hipfft/hipfft.h>", "#include <hip/hip_runtime.h>", "hipfftComplex* data", "hipfftHandle plan;",
         "hipfftPlan1d(&plan, n, HIPFFT_C2C, batch) != HIPFFT_SUCCESS",
         "hipfftExecC2C(plan, data, data, HIPFFT_FORWARD)", "const hipfftResult r", "hipfftDestroy(plan);",
         "hipDeviceSynchronize();"},
        {"cufftComplex", "cufftHandle", "cufftPlan1d", "cufftExecC2C", "cufftDestroy", "cufftResult", "CUFFT_",
         "<cufft.h>", "cudaDeviceSynchronize"}}},
  };
  const fs::path tree = source_dir("tests/convert/golden/tree");
  for (const auto& [rel, e] : table) {
    const std::string text = read(tree / rel);
    ASSERT_FALSE(text.empty()) << rel;
    for (const auto& m : e.must) EXPECT_THAT(text, HasSubstr(m)) << rel;
    for (const auto& m : e.must_not) EXPECT_THAT(text, ::testing::Not(HasSubstr(m))) << rel;
  }
}

TEST(GoldenOracle, FindingsHoldTheLinesListedByHand) {
  const std::string findings_text = read(source_dir("tests/convert/golden/findings.txt"));
  std::set<std::string> lines;
  std::istringstream in(findings_text);
  for (std::string line; std::getline(in, line);) lines.insert(line);
  // From the corpus sources: the *_sync intrinsics HIP 5.2 lacks, where they are written.
  // From the corpus build files: the nvcc-only settings. From the hazards file: the headers with
  // no HIP counterpart. Every file is converted; gfx942 (unknown to hipcc 5.2) is never checkable.
  std::vector<std::string> must{
      "D hazards/nvidia_features.cu:5:10 error manual_port cuda_pipeline.h",
      "D hazards/nvidia_features.cu:7:10 error manual_port mma.h",
      "D build/Makefile:3:9 warning build_system nvcc",
      "D build/Makefile:4:13 warning build_system -gencode",
      "D build/CMakeLists.txt:8:45 warning build_system CUDA_ARCHITECTURES",
  };
  const fs::path corpus = source_dir("tests/convert/corpus");
  for (const auto& rel : files_under(corpus)) {
    must.push_back("F " + rel + " converted");
    if (!is_standalone_source(rel)) continue;
    must.push_back("B " + rel + " gfx942 not_checkable_here target_unknown");
    // The build check's gfx90a verdict agrees with the independent hipcc outcome listed above.
    const auto& e = expected_compiles().at(rel);
    if (e.compiles) {
      must.push_back("B " + rel + " gfx90a passed none");
    } else if (e.says.find("hipblas") != std::string::npos || e.says.find("hipfft") != std::string::npos) {
      must.push_back("B " + rel + " gfx90a checked_in_container missing_library");
    } else {
      must.push_back("B " + rel + " gfx90a failed undeclared_identifier");
    }
  }
  for (const auto& m : must) EXPECT_TRUE(lines.count(m)) << "findings.txt lacks: " << m;
  // CUDA names in comments, strings and literals are text: nothing is reported about them.
  for (const auto& line : lines) {
    EXPECT_EQ(line.rfind("D comments_strings/", 0), std::string::npos) << line;
    EXPECT_EQ(line.rfind("H comments_strings/", 0), std::string::npos) << line;
  }
}

TEST(PortCli, UsageErrorsSayWhatToDo) {
  r2r::test::temp_dir tmp;
  tmp.write("src/a.cu", "int a;\n");
  tmp.write("full/notes.txt", "mine\n");
  const std::string src = (tmp.path() / "src").string();
  const auto run = [](const std::string& args) { return r2r::test::run_process(exe() + " port " + args); };
  auto r = run("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("usage: repo2rocm port SOURCE"));
  r = run("https://github.com/x/y.git");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("git URLs are not supported"));
  r = run(src + "/a.cu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is not a directory"));
  r = run(src + " --arch sm_80");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("'sm_80' is not one"));
  r = run(src + " --rocm latest");
  EXPECT_EQ(r.exit_code, 2);
  r = run(src + " --out " + src + "/out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("must not contain each other"));
  r = run(src + " --out " + (tmp.path() / "full").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("holds no earlier port"));
  EXPECT_EQ(read(tmp.path() / "full" / "notes.txt"), "mine\n");
  r = run(src + " --kind guard");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--kind is not an option of `port`"));
}

TEST(PortCli, RerunReplacesAnEarlierPortAndReportsUnavailableStages) {
  r2r::test::temp_dir tmp;
  tmp.write("src/a.cu", "#include <cuda_runtime.h>\nvoid f(float* p) { cudaFree(p); }\n");
  const auto pipeline = tmp.write("p.json", R"({"version": 1, "pipeline": [
    {"stage": "convert", "name": "external", "use": "r2r.converter.hipify-external",
     "config": {"search_dirs": ["/nonexistent"]}},
    {"stage": "convert", "name": "hipify", "use": "r2r.converter.hipify"}]})");
  const std::string args = (tmp.path() / "src").string() + " --out " + (tmp.path() / "out").string() + " --pipeline " +
                           pipeline.string() + " --json";
  // hipify-external looks in a directory without the tools; PATH is cleared so none is found.
  auto r = r2r::test::run_process("PATH=/nonexistent " + exe() + " port " + args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto brief = json::parse(r.out);
  EXPECT_EQ(brief.at("stages").at(0).at("status"), "unavailable");
  EXPECT_THAT(brief.at("stages").at(0).at("message").get<std::string>(), HasSubstr("was not found"));
  EXPECT_EQ(brief.at("stages").at(1).at("status"), "ok");
  EXPECT_EQ(brief.at("summary").at("converted"), 1);
  r = r2r::test::run_process("PATH=/nonexistent " + exe() + " port " + args);
  EXPECT_EQ(r.exit_code, 0) << "an earlier port's output directory is replaced: " << r.err;
}

}  // namespace
