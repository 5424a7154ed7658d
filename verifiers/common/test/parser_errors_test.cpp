// SPDX-License-Identifier: MIT
// Malformed and truncated inputs: every parser throws parse_error whose message names the tool,
// what it expected and what it found; nothing crashes.
#include <r2r/verify/amd_smi.hpp>
#include <r2r/verify/bundle.hpp>
#include <r2r/verify/nvidia_smi.hpp>
#include <r2r/verify/rocm_smi.hpp>
#include <r2r/verify/rocminfo.hpp>
#include <r2r/verify/rocprof.hpp>
#include <r2r/verify/text.hpp>
#include <r2r/verify/torch_output.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include <functional>

namespace {

using namespace r2r::plugins::verifier;
using ::testing::HasSubstr;

void expect_error(const std::function<void()>& f, const std::string& tool, const std::string& expected) {
  try {
    f();
    ADD_FAILURE() << "no parse_error for " << tool;
  } catch (const parse_error& e) {
    EXPECT_THAT(e.what(), HasSubstr(tool));
    EXPECT_THAT(e.what(), HasSubstr("expected " + expected));
    EXPECT_THAT(e.what(), HasSubstr("found"));
  }
}

// Found by review for the std::stoi pattern the region_edit fuzz target hit, and confirmed with the
// rocminfo and torch_output fuzz targets: a number too large for an int escaped as
// std::out_of_range instead of parse_error (also in the rocprof console and nvidia-smi parsers).
TEST(ParserErrors, NumbersTooLargeForTheirFieldAreParseErrors) {
  expect_error([] { parse_rocminfo("Agent 99999999999999999999\n  Name:                    gfx90a\n"); }, "rocminfo",
               "an agent number that fits in an int");
  expect_error([] { parse_torch_text("Detected 99999999999 AMD devices\n"); }, "torch output",
               "a device count that fits in an int");
  expect_error([] { parse_rocprof_console("  99999999999999 metrics\n"); }, "rocprof console",
               "a metric count that fits in an int");
  expect_error(
      [] {
        parse_nvidia_smi_table(
            "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n"
            "|   99999999999  NVIDIA H200   On   |\n");
      },
      "nvidia-smi", "a GPU index that fits in an int");
  expect_error(
      [] {
        parse_nvidia_smi_table(
            "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n"
            "| Processes:                                                         |\n"
            "|    0   N/A  N/A   99999999999999999999999   C   python   1000MiB |\n");
      },
      "nvidia-smi", "a process id");
}

TEST(ParserErrors, TruncatedKernelTraceRow) {
  expect_error([] { parse_kernel_trace_csv("\"Kind\",\"Agent_Id\",\"Kernel_Name\"\n\"KERNEL_DISPATCH\",2\n"); },
               "rocprof kernel trace CSV", "3 fields per row");
}

TEST(ParserErrors, UnclosedQuoteInKernelName) {
  expect_error([] { parse_kernel_trace_csv("\"Kind\",\"Kernel_Name\"\n\"KERNEL_DISPATCH\",\"void f<float>(int\n"); },
               "rocprof kernel trace CSV", "a closing");
}

TEST(ParserErrors, TraceWithoutKernelNameColumn) {
  expect_error([] { parse_kernel_trace_csv("\"Name\",\"Calls\"\n\"k\",1\n"); }, "rocprof kernel trace CSV",
               "a Kernel_Name");
}

TEST(ParserErrors, EmptyInputs) {
  expect_error([] { parse_stats_csv(""); }, "rocprof statistics CSV", "a CSV header line");
  expect_error([] { parse_rocminfo(""); }, "rocminfo", "'Agent N' blocks");
  expect_error([] { parse_rocm_smi_showpids(""); }, "rocm-smi --showpids", "a 'KFD process information:' block");
  expect_error([] { parse_amd_smi_process(""); }, "amd-smi process", "a PROCESS_INFO section");
  expect_error([] { parse_nvidia_smi_table(""); }, "nvidia-smi", "the 'Driver Version");
  expect_error([] { parse_torch_text(""); }, "torch output", "collect_env lines");
  expect_error([] { parse_summary_table(""); }, "rocprofv3 --summary", "a 'ROCPROFV3");
  expect_error([] { parse_amd_smi_version(""); }, "amd-smi version", "'AMDSMI Tool");
}

TEST(ParserErrors, RocminfoFailureTextIsNotAnAgentList) {
  // What rocminfo prints without device access.
  expect_error([] { parse_rocminfo("ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\n"); },
               "rocminfo", "'Agent N' blocks");
}

TEST(ParserErrors, ShowpidsRowCutOff) {
  expect_error(
      [] {
        parse_rocm_smi_showpids("KFD process information:\nPID\tPROCESS NAME\tGPU(s)\tVRAM USED\n2254756\twork\n");
      },
      "rocm-smi --showpids", "PID, PROCESS NAME");
}

TEST(ParserErrors, AmdSmiCsvWrongFieldCount) {
  expect_error([] { parse_amd_smi_process("gpu,name,pid,vram_mem\n0,pt_main_thread\n"); }, "amd-smi process",
               "4 fields per row");
}

TEST(ParserErrors, ProductNameBadJson) {
  expect_error([] { parse_rocm_smi_productname("{\n  \"card0\": {\n    \"Card Series\": "); },
               "rocm-smi --showproductname", "one complete JSON object");
}

TEST(ParserErrors, ProbeJsonCutOffByAKill) {
  expect_error([] { parse_probe_json("{\"pid\": 12, \"torch\": {\"ver"); }, "repo2rocm probe JSON", "one JSON object");
  expect_error([] { parse_probe_json("[1, 2]"); }, "repo2rocm probe JSON", "an object with \"pid\"");
}

TEST(ParserErrors, ComputeAppsWithoutPidOrName) {
  expect_error([] { parse_nvidia_smi_compute_apps("gpu_uuid, used_memory [MiB]\nGPU-1, 10 MiB\n"); },
               "nvidia-smi --query-compute-apps", "a pid or process_name column");
}

TEST(Bundle, SamplesWithUnparseableToolOutputKeepTheError) {
  const auto s = parse_samples("### sample 0 1\n### tree 5 6 \n### tool rocm-smi\nrocm-smi: command failed\n");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].tree, (std::set<long long>{5, 6}));
  EXPECT_THAT(s[0].error, HasSubstr("rocm-smi --showpids"));
}

TEST(Bundle, LogCannotOpenSections) {
  const std::string out = "\n@@R2R-n exit\n0 1 2\n\n@@R2R-n log\nhello\n@@R2R-n probe probe-1.json\n{\"pid\":1}\n";
  const auto s = parse_bundle(out, "n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "exit");
  EXPECT_EQ(s[0].body, "0 1 2\n");
  EXPECT_EQ(s[1].name, "log");
  EXPECT_THAT(s[1].body, HasSubstr("@@R2R-n probe"));
}

TEST(Text, BytesAndAnsi) {
  EXPECT_EQ(to_bytes("1002 MiB"), 1002.0 * 1048576);
  EXPECT_EQ(to_bytes("2.0 MB"), 2.0 * 1048576);
  EXPECT_FALSE(to_bytes("N/A").has_value());
  EXPECT_EQ(strip_ansi("\x1b[37mROCk module is loaded\x1b[0m"), "ROCk module is loaded");
  EXPECT_EQ(strip_ansi("^[3m  (DID)^[0m"), "  (DID)");
}

}  // namespace

namespace {

using namespace r2r::plugins::verifier;

std::string regression_input(const std::string& name) {
  std::ifstream in(std::string(R2R_TEST_DATA) + "/fuzz-regressions/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Inputs fuzz_amd_smi and fuzz_torch_output crashed on (tests/data/fuzz-regressions): a process row
// without one of its header's columns threw std::out_of_range from map::at; a long line drove
// libstdc++'s regex into a stack overflow. Both now parse or give parse_error, nothing else.
TEST(ParserErrors, FuzzRegressionsParseOrGiveParseError) {
  const std::string amd = regression_input("amd_smi-row-without-a-column.bin");
  try {
    (void)parse_amd_smi_process(amd);
  } catch (const parse_error&) {
  }
  const std::string torch = regression_input("torch_output-long-line.bin");
  try {
    (void)parse_torch_text(torch);
  } catch (const parse_error&) {
  }
  // A hostile workload log: one 200 000-character line, then a real fact.
  const auto f = parse_torch_text(std::string(200000, '(') + "\nPyTorch version: 2.5.1+rocm6.2\n");
  EXPECT_EQ(f.version, "2.5.1+rocm6.2");
}

}  // namespace

namespace {

using namespace r2r::plugins::verifier;

// fuzz_probe_json: a probe field of the wrong type threw nlohmann's type_error out of the parser.
TEST(ParserErrors, ProbeFieldsOfTheWrongTypeAreParseErrors) {
  for (const char* doc : {R"({"pid": "12"})", R"({"pid": 1, "devices": [{"max_memory_allocated": "1 GiB"}]})",
                          R"({"pid": 1, "kernels": {"k": "many"}})", R"({"pid": 1, "is_available": "yes"})"}) {
    try {
      (void)parse_probe_json(doc);
      ADD_FAILURE() << "accepted " << doc;
    } catch (const parse_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("repo2rocm probe JSON")) << doc;
    }
  }
  // fuzz_probe_json (UBSan): a number out of range of the integer it is read into, or not whole, was
  // cast anyway (undefined behaviour); now a parse_error naming the field.
  for (const char* doc :
       {R"({"pid": 1075115555555555555555555555555555555555555555555555555555555})", R"({"pid": 1e300})",
        R"({"pid": 2.5})", R"({"pid": 1, "ppid": -1e19})", R"({"pid": 1, "devices": [{"index": 1e10}]})",
        R"({"pid": 1, "kernels": {"k": 1e30}})", R"({"pid": 18446744073709551615})"}) {
    try {
      (void)parse_probe_json(doc);
      ADD_FAILURE() << "accepted " << doc;
    } catch (const parse_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("whole number in range")) << doc;
    }
  }
  // Whole numbers written as floats by a JSON library are still read.
  const auto whole = parse_probe_json(R"({"pid": 12.0, "devices": [{"index": 0}], "kernels": {"k": 3.0}})");
  EXPECT_EQ(whole.pid, 12);
  ASSERT_TRUE(whole.kernels.has_value());
  EXPECT_EQ(whole.kernels->at("k"), 3);
  // A torch object without hip/cuda keys read them through a const operator[] (an assertion).
  const auto p = parse_probe_json(R"({"pid": 1, "torch": {"version": "2.5.1"}})");
  EXPECT_EQ(p.torch_version, "2.5.1");
  EXPECT_EQ(p.hip, "");
}

}  // namespace
