// SPDX-License-Identifier: MIT
#include "test_support.hpp"

#include <r2r/core/search_path.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

TEST(SearchPath, OrderIsCliEnvPipelineExecutablePrefix) {
  r2r::core::search_inputs in;
  in.cli_paths = {"/cli/a", "/cli/b"};
  in.env_value = "/env/a::/env/b";
  in.pipeline_paths = {"plugins", "/abs/p"};
  in.pipeline_dir = "/configs/pipelines";
  in.executable_dir = "/opt/r2r/bin";
  in.install_prefix = "/usr/local";
  std::vector<std::string> got;
  for (const auto& l : r2r::core::plugin_search_path(in)) got.push_back(l.path.string() + " " + l.origin);
  EXPECT_EQ(got, (std::vector<std::string>{"/cli/a --plugin-path", "/cli/b --plugin-path", "/env/a R2R_PLUGIN_PATH",
                                           "/env/b R2R_PLUGIN_PATH", "/configs/pipelines/plugins pipeline",
                                           "/abs/p pipeline", "/opt/r2r/lib/r2r/plugins executable",
                                           "/usr/local/lib/r2r/plugins install prefix"}));
}

TEST(SearchPath, RelativePathsBecomeAbsoluteAndDuplicatesCollapse) {
  r2r::core::search_inputs in;
  in.cli_paths = {"rel/dir", "rel/dir/../dir"};
  const auto path = r2r::core::plugin_search_path(in);
  ASSERT_EQ(path.size(), 1u);
  EXPECT_TRUE(path[0].path.is_absolute());
}

TEST(SearchPath, FirstFileNameWinsAndOtherFilesAreIgnored) {
  r2r::test::temp_dir tmp;
  tmp.write("a/libr2r-guard-x.so", "1");
  tmp.write("a/notes.txt", "x");
  tmp.write("a/libfoo.so", "x");
  tmp.write("b/libr2r-guard-x.so", "2");
  tmp.write("b/libr2r-llm-y.so", "3");
  const auto explicit_file = tmp.write("c/custom-name.so", "4");
  std::vector<std::string> shadowed;
  const auto files = r2r::core::discover_plugin_files(
      {{tmp.path() / "a", "t"}, {tmp.path() / "b", "t"}, {explicit_file, "t"}, {tmp.path() / "missing", "t"}},
      &shadowed);
  std::vector<std::string> names;
  for (const auto& f : files)
    names.push_back(f.path.parent_path().filename().string() + "/" + f.path.filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"a/libr2r-guard-x.so", "b/libr2r-llm-y.so", "c/custom-name.so"}));
  ASSERT_EQ(shadowed.size(), 1u);
  EXPECT_THAT(shadowed[0], ::testing::HasSubstr("b/libr2r-guard-x.so"));
}

}  // namespace
