// SPDX-License-Identifier: MIT
#include <r2r/guards/known_files.hpp>

#include <gtest/gtest.h>

namespace {

using r2r::plugins::guard::known_files;

r2r::sdk::guard::observe_request observed(const char* type, const char* path, int exit_code, const char* out,
                                          const char* content = "") {
  return nlohmann::json{{"action", {{"type", type}, {"path", path}, {"content", content}}},
                        {"observation", {{"exit_code", exit_code}, {"stdout", out}}}}
      .get<r2r::sdk::guard::observe_request>();
}

TEST(KnownFiles, RemembersReadsAndWritesByNormalisedPath) {
  known_files files(16);
  EXPECT_EQ(known_files::normalise("./a//b/../c"), "a/c");
  EXPECT_EQ(known_files::normalise("/x/./y"), "/x/y");
  files.observe(observed("read_file", "./cfg/a.yaml", 0, "epochs: 90\n"));
  EXPECT_EQ(files.content("cfg/a.yaml"), "epochs: 90\n");
  files.observe(observed("read_file", "cfg/missing.yaml", 1, "No such file"));
  EXPECT_FALSE(files.content("cfg/missing.yaml").has_value());
  files.observe(observed("write_file", "cfg/a.yaml", 0, "", "epochs: 1\n"));
  EXPECT_EQ(files.content("cfg/a.yaml"), "epochs: 1\n");
  files.remember("cfg/a.yaml", "this text is longer than sixteen bytes");
  EXPECT_FALSE(files.content("cfg/a.yaml").has_value());
}

}  // namespace
