// SPDX-License-Identifier: MIT
#include "test_support.hpp"

#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using ::testing::HasSubstr;

std::vector<r2r::core::search_location> path_of(std::initializer_list<std::filesystem::path> dirs) {
  std::vector<r2r::core::search_location> out;
  for (const auto& d : dirs) out.push_back({d, "test"});
  return out;
}

TEST(Registry, BrokenFilesAreDisabledAndDoNotStopTheOthers) {
  r2r::test::temp_dir tmp;
  tmp.write("libr2r-guard-corrupt.so", "garbage bytes, not a library");
  auto registry = r2r::core::plugin_registry::load(
      path_of({tmp.path(), r2r::test::fixture_dir("abi_major_mismatch"), r2r::test::fixture_dir("good_c"),
               r2r::test::plugin_dir(), r2r::test::fixture_dir("undefined_symbol")}));
  ASSERT_TRUE(registry.has_value()) << registry.error().to_string();
  EXPECT_NE(registry->find("test.guard.good_c"), nullptr);
  EXPECT_NE(registry->find("r2r.guard.cpu-fallback"), nullptr);
  ASSERT_EQ(registry->disabled().size(), 3u);
  for (const auto& d : registry->disabled()) {
    const std::string line = d.reason.to_string();
    EXPECT_EQ(line.find('\n'), std::string::npos) << "reason must be one line: " << line;
    EXPECT_THAT(line, HasSubstr(d.library.filename().string()));
  }
}

TEST(Registry, DuplicateIdIsAHardErrorNamingBothFiles) {
  auto registry = r2r::core::plugin_registry::load(
      path_of({r2r::test::fixture_dir("duplicate_id_a"), r2r::test::fixture_dir("duplicate_id_b")}));
  ASSERT_FALSE(registry.has_value());
  EXPECT_EQ(registry.error().where, r2r::core::phase::registry);
  EXPECT_EQ(registry.error().plugin_id, "test.guard.duplicate");
  EXPECT_THAT(registry.error().message, HasSubstr("libr2r-guard-duplicate_id_a.so"));
  EXPECT_THAT(registry.error().message, HasSubstr("libr2r-guard-duplicate_id_b.so"));
}

TEST(Registry, ListIsSortedByKindThenId) {
  auto registry =
      r2r::core::plugin_registry::load(path_of({r2r::test::fixture_dir("shadow_b"), r2r::test::fixture_dir("shadow_a"),
                                                r2r::test::fixture_dir("echo"), r2r::test::fixture_dir("good_c")}));
  ASSERT_TRUE(registry.has_value());
  std::vector<std::string> ids;
  for (const auto* p : registry->list()) ids.push_back(p->info.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"test.llm.echo", "test.guard.good_c", "test.scheduler.shadow_a",
                                           "test.scheduler.shadow_b"}));
  EXPECT_EQ(registry->list(R2R_KIND_SCHEDULER).size(), 2u);
}

TEST(Registry, DisabledRecordIsFoundById) {
  auto registry = r2r::core::plugin_registry::load(path_of({r2r::test::fixture_dir("null_ops")}));
  ASSERT_TRUE(registry.has_value());
  ASSERT_NE(registry->find_disabled("test.guard.null_ops"), nullptr);
  EXPECT_EQ(registry->find("test.guard.null_ops"), nullptr);
}

}  // namespace
