// SPDX-License-Identifier: MIT
// The CUDA device intrinsics of data/project_map.json "unlisted_device_names" are reported as
// having no HIP equivalent. Checked against the HIP headers installed here (HIP 5.2.3): every one
// is an undeclared identifier, while a control intrinsic HIP has compiles with the same probe.
#include <r2r/convert/mapping.hpp>
#include <r2r/convert/scratch_dir.hpp>
#include <r2r/convert/subprocess.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

using namespace r2r::plugins::converter;

process_result syntax_check(const scratch_dir& dir, const std::string& name, const std::string& body) {
  const auto file = dir.path() / (name + ".hip");
  std::ofstream(file) << "#include <hip/hip_runtime.h>\n__global__ void probe() {\n" << body << "}\n";
  process_options o;
  o.argv = {*find_program("hipcc", {"/opt/rocm/bin"}),
            "--offload-arch=gfx90a",
            "-std=c++17",
            "-ferror-limit=0",
            "-fsyntax-only",
            "-x",
            "hip",
            file.string()};
  return run_process(o);
}

TEST(UnlistedNames, AreUndeclaredInTheInstalledHip) {
  ASSERT_TRUE(find_program("hipcc", {"/opt/rocm/bin"})) << "hipcc is required by this test; run scripts/bootstrap.sh";
  scratch_dir dir("r2r-unlisted");
  const auto control = syntax_check(dir, "control", "  { auto p = &__ballot; (void)p; }\n");
  ASSERT_TRUE(control.ok()) << "the probe must compile for an intrinsic HIP has: " << control.err;

  std::string body;
  int i = 0;
  for (const auto& row : unlisted_rows()) {
    body +=
        "  { auto p" + std::to_string(i) + " = &" + std::string(row.cuda) + "; (void)p" + std::to_string(i) + "; }\n";
    ++i;
  }
  ASSERT_GT(i, 20);
  const auto r = syntax_check(dir, "unlisted", body);
  EXPECT_FALSE(r.ok());
  for (const auto& row : unlisted_rows()) {
    EXPECT_NE(r.err.find("use of undeclared identifier '" + std::string(row.cuda) + "'"), std::string::npos)
        << row.cuda << " is declared by the installed HIP: remove it from unlisted_device_names";
    EXPECT_EQ(find_name(row.cuda), nullptr) << row.cuda << " is in the tables";
    EXPECT_FALSE(row.hint.empty());
  }
}

}  // namespace
