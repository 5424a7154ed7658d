// SPDX-License-Identifier: MIT
#include <r2r/convert/hipify.hpp>

#include <gtest/gtest.h>

namespace {

using r2r::plugins::converter::convert_build_file;

TEST(HipifyBuildFile, RewritesLinkNamesAndTargetsOutsideComments) {
  const auto out = convert_build_file("CMakeLists.txt",
                                      "# links -lcublas in a comment\n"
                                      "target_link_libraries(app PRIVATE CUDA::cudart CUDA::cublas)\n"
                                      "set(LIBS \"-lcurand -lm\")\n");
  EXPECT_EQ(out.text,
            "# links -lcublas in a comment\n"
            "target_link_libraries(app PRIVATE hip::host roc::hipblas)\n"
            "set(LIBS \"-lhiprand -lm\")\n");
  EXPECT_EQ(out.stats.at("libraries_rewritten"), 3);
}

TEST(HipifyBuildFile, ReportsCudaBuildConstructs) {
  const auto out = convert_build_file("CMakeLists.txt",
                                      "project(demo LANGUAGES CXX CUDA)\nfind_package(CUDAToolkit REQUIRED)\n"
                                      "set_target_properties(app PROPERTIES CUDA_ARCHITECTURES 80)\n"
                                      "message(\"CUDA is optional\")\n");
  ASSERT_EQ(out.diagnostics.size(), 3u);
  EXPECT_EQ(out.diagnostics[0].line, 1);
  EXPECT_EQ(out.diagnostics[0].column, 28);
  EXPECT_EQ(out.diagnostics[1].name, "CUDAToolkit");
  EXPECT_EQ(out.diagnostics[2].name, "CUDA_ARCHITECTURES");
  for (const auto& d : out.diagnostics) EXPECT_EQ(d.category, "build_system");
  EXPECT_FALSE(out.changed);
}

TEST(HipifyBuildFile, MakefileFlags) {
  const auto out = convert_build_file("Makefile", "app: a.cu\n\tnvcc -arch=sm_80 -o app a.cu -lcudart -lcudnn\n");
  EXPECT_EQ(out.text, "app: a.cu\n\tnvcc -arch=sm_80 -o app a.cu -lamdhip64 -lcudnn\n");
  ASSERT_EQ(out.diagnostics.size(), 3u);
  EXPECT_EQ(out.diagnostics[0].name, "nvcc");
  EXPECT_EQ(out.diagnostics[1].name, "-arch=sm_80");
  EXPECT_EQ(out.diagnostics[2].name, "-lcudnn");
  EXPECT_EQ(out.diagnostics[2].severity, "error");
}

}  // namespace
