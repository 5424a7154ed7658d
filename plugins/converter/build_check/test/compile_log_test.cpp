// SPDX-License-Identifier: MIT
// Classification of hipcc diagnostics (texts as clang 15 / HIP 5.2 print them).
#include "compile_log.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::converter::classify_compile_failure;
using r2r::plugins::converter::rocm_library_of;
using ::testing::HasSubstr;

TEST(CompileLog, UnknownTargetIsNotCheckableHere) {
  const auto v = classify_compile_failure(
      "clang: error: invalid target ID 'gfx942'; format is a processor name followed by an optional colon-delimited "
      "list of features followed by an enable/disable sign (e.g., 'gfx908:sramecc+:xnack-')\n");
  EXPECT_EQ(v.status, "not_checkable_here");
  EXPECT_EQ(v.failure_class, "target_unknown");
}

TEST(CompileLog, PytorchHeadersAreCheckedInTheContainer) {
  const auto v = classify_compile_failure(
      "c.hip:2:10: fatal error: 'torch/extension.h' file not found\n#include <torch/extension.h>\n         ^~~~\n"
      "1 error generated when compiling for gfx90a.\n");
  EXPECT_EQ(v.status, "checked_in_container");
  EXPECT_EQ(v.failure_class, "needs_pytorch");
  EXPECT_EQ(v.names, std::vector<std::string>{"torch/extension.h"});
}

TEST(CompileLog, RocmLibrariesNotInstalledHere) {
  const auto v = classify_compile_failure("a.cu:3:10: fatal error: 'hipblas/hipblas.h' file not found\n");
  EXPECT_EQ(v.status, "checked_in_container");
  EXPECT_EQ(v.failure_class, "missing_library");
  EXPECT_THAT(v.message, HasSubstr("hipBLAS"));
  EXPECT_EQ(rocm_library_of("hipcub/hipcub.hpp"), "hipCUB");
  EXPECT_EQ(rocm_library_of("my/header.h"), "");
}

// A ROCm library installed without some of its own headers (Debian's librocwmma-dev lacks rocWMMA's
// internal/): the port included the library correctly, so this is the toolchain's gap, checked in a
// ROCm image that ships the whole library, not a conversion failure blamed on the port.
TEST(CompileLog, AHeaderMissingInsideAnInstalledRocmLibraryIsThatLibrarysGap) {
  const auto v = classify_compile_failure(
      "In file included from /r2r/src/wmma_gemm.cu:8:\n"
      "/usr/include/rocwmma/rocwmma.hpp:29:10: fatal error: 'internal/accessors.hpp' file not found\n"
      "   29 | #include \"internal/accessors.hpp\"\n"
      "1 error generated when compiling for gfx942.\n");
  EXPECT_EQ(v.status, "checked_in_container");
  EXPECT_EQ(v.failure_class, "missing_library");
  EXPECT_THAT(v.message, HasSubstr("rocWMMA"));
  EXPECT_THAT(v.message, HasSubstr("internal/accessors.hpp"));
  EXPECT_EQ(v.names, std::vector<std::string>{"internal/accessors.hpp"});
}

// The same missing name from the project's own file (or a project directory merely named like a
// library) is the project's problem and still fails.
TEST(CompileLog, AProjectHeaderMissingFromTheProjectStillFails) {
  for (const char* log : {"/r2r/src/wmma_gemm.cu:8:10: fatal error: 'internal/accessors.hpp' file not found\n",
                          "/r2r/src/rocwmma/gemm.cu:3:10: fatal error: 'internal/accessors.hpp' file not found\n",
                          "/r2r/src/include/rocwmma/a.hpp:3:10: fatal error: 'internal/accessors.hpp' file not found\n",
                          "/tmp/r2r-bc/src/include/rocblas/x.h:3:10: fatal error: 'internal/y.h' file not found\n",
                          "/usr/include/hip/hip_runtime.h:3:10: fatal error: 'internal/x.hpp' file not found\n"}) {
    const auto v = classify_compile_failure(log);
    EXPECT_EQ(v.status, "failed") << log;
    EXPECT_EQ(v.failure_class, "missing_header") << log;
  }
}

TEST(CompileLog, OtherMissingHeadersFail) {
  const auto v = classify_compile_failure("a.cu:1:10: fatal error: 'cuda_runtime.h' file not found\n");
  EXPECT_EQ(v.status, "failed");
  EXPECT_EQ(v.failure_class, "missing_header");
  EXPECT_EQ(v.names.at(0), "cuda_runtime.h");
}

TEST(CompileLog, UndeclaredIdentifiersAreListed) {
  const auto v = classify_compile_failure(
      "d.hip:2:41: error: use of undeclared identifier '__shfl_down_sync'; did you mean '__shfl_down'?\n"
      "d.hip:3:1: error: unknown type name 'cudaStream_t'\n"
      "d.hip:4:1: error: use of undeclared identifier '__shfl_down_sync'\n");
  EXPECT_EQ(v.status, "failed");
  EXPECT_EQ(v.failure_class, "undeclared_identifier");
  EXPECT_EQ(v.names, (std::vector<std::string>{"__shfl_down_sync", "cudaStream_t"}));
}

TEST(CompileLog, AnythingElseIsACompileError) {
  const auto v = classify_compile_failure("warning: x\nk.hip:9:3: error: invalid operands to binary expression\n");
  EXPECT_EQ(v.failure_class, "compile_error");
  EXPECT_EQ(v.message, "k.hip:9:3: error: invalid operands to binary expression");
}

}  // namespace

// Texts below are shaped like clang 21 / HIP 6.4 output, written for the tests.
TEST(CompileLog, ATargetItsRocprimDoesNotKnowIsNotCheckableHere) {
  const auto v = classify_compile_failure(
      "/usr/include/rocprim/device/../config.hpp:107:6: warning: \"unknown build target\" [-W#warnings]\n"
      "/usr/include/rocprim/block/../intrinsics/atomic.hpp:210:6: error: support for 128-bit atomics not "
      "implemented for current architecture\n");
  EXPECT_EQ(v.status, "not_checkable_here");
  EXPECT_EQ(v.failure_class, "target_unknown");
  EXPECT_THAT(v.message, HasSubstr("rocPRIM"));
}

TEST(CompileLog, AttackAProjectsOwnUnknownTargetWarningIsNoToolchainLimit) {
  // The project's code warns and fails: that is its error, never "not checkable here".
  const auto v = classify_compile_failure(
      "/src/rocprim/config.hpp:3:2: warning: \"unknown build target\" [-W#warnings]\n"
      "/src/k.cu:9:3: error: use of undeclared identifier 'x'\n");
  EXPECT_EQ(v.status, "failed");
  EXPECT_EQ(v.failure_class, "undeclared_identifier");
}

TEST(CompileLog, AttackAProjectErrorBesideRocprimsWarningIsTheProjectsError) {
  // Every gfx950 unit that includes rocPRIM gets the warning, and passes when it uses no block
  // primitive; an error of the project's own must stay a failure (found by a planted error).
  const auto v = classify_compile_failure(
      "/usr/include/rocprim/device/../config.hpp:107:6: warning: \"unknown build target\" [-W#warnings]\n"
      "/work/p/ext.cu:14:3: error: use of undeclared identifier 'r2r_planted_undeclared'\n");
  EXPECT_EQ(v.status, "failed");
  EXPECT_EQ(v.failure_class, "undeclared_identifier");
}

TEST(CompileLog, AnErrorInToolchainHeadersNamesTheProjectLineThatLedThere) {
  const std::string out =
      "/usr/include/rocprim/block/block_load.hpp:773:41: error: static assertion failed due to requirement "
      "'BlockSize % ::rocprim::arch::wavefront::min_size() == 0': BlockSize must be a multiple of hardware "
      "warpsize\n"
      "/usr/include/hipcub/backend/rocprim/block/block_load.hpp:80:15: note: in instantiation of template class "
      "'rocprim::block_load<float, 32, 4>' requested here\n"
      "/work/p/csrc/k.cuh:84:68: note: in instantiation of template class 'hipcub::BlockLoad<float, 32, 4>' "
      "requested here\n"
      "/work/p/csrc/k.cuh:358:9: note: in instantiation of function template specialization 'launch<32>' "
      "requested here\n";
  const auto v = classify_compile_failure(out);
  EXPECT_EQ(v.status, "failed");
  EXPECT_EQ(v.failure_class, "compile_error");
  EXPECT_THAT(v.message, HasSubstr("not a multiple of the wavefront"));
  EXPECT_THAT(v.message, HasSubstr("(from /work/p/csrc/k.cuh:84)"));
  EXPECT_EQ(r2r::plugins::converter::first_project_location(out), "/work/p/csrc/k.cuh:84");
}

TEST(CompileLog, AProjectsOwnFirstErrorGetsNoFromLocation) {
  const std::string out =
      "/work/p/k.cu:5:3: error: expected ';' after expression\n"
      "/usr/include/x.h:1:1: error: something\n/work/p/k.cu:6:1: note: in instantiation of f requested here\n";
  EXPECT_EQ(r2r::plugins::converter::first_project_location(out), "");
  EXPECT_EQ(classify_compile_failure(out).message, "/work/p/k.cu:5:3: error: expected ';' after expression");
}
