// SPDX-License-Identifier: MIT
#include "test_support.hpp"

#include <r2r/core/pipeline_config.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using ::testing::HasSubstr;

r2r::core::plugin_registry registry() {
  auto r = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"},
                                             {r2r::test::fixture_dir("echo"), "test"},
                                             {r2r::test::fixture_dir("null_ops"), "test"}});
  EXPECT_TRUE(r.has_value());
  return std::move(*r);
}

std::vector<r2r::core::config_problem> problems_of(const std::string& text) {
  auto parsed = r2r::core::parse_pipeline_text(text, "p.json");
  if (!parsed.config) return parsed.problems;
  return r2r::core::check_pipeline_plugins(*parsed.config, registry());
}

std::string all(const std::vector<r2r::core::config_problem>& problems) {
  std::string out;
  for (const auto& p : problems) out += p.to_string() + "\n";
  return out;
}

TEST(PipelineConfig, TheDefaultPipelineIsValid) {
  auto parsed =
      r2r::core::parse_pipeline_file(r2r::test::env_path("R2R_SOURCE_DIR") / "configs/pipelines/default.json");
  ASSERT_TRUE(parsed.config.has_value()) << all(parsed.problems);
  EXPECT_TRUE(r2r::core::check_pipeline_plugins(*parsed.config, registry()).empty());
}

TEST(PipelineConfig, WrongTypeInAPluginConfigNamesPluginPointerAndExpectation) {
  const auto problems = problems_of(R"({"version": 1, "pipeline": [
      {"stage": "guard", "use": "r2r.guard.cpu-fallback", "config": {"max_scan_bytes": "lots"}}]})");
  ASSERT_EQ(problems.size(), 1u) << all(problems);
  EXPECT_EQ(problems[0].plugin_id, "r2r.guard.cpu-fallback");
  EXPECT_EQ(problems[0].pointer, "/pipeline/0/config/max_scan_bytes");
  EXPECT_THAT(problems[0].message, HasSubstr("\"type\":\"integer\""));
  EXPECT_THAT(problems[0].message, HasSubstr("found string \"lots\""));
}

TEST(PipelineConfig, EveryViolationIsReportedNotJustTheFirst) {
  const auto problems = problems_of(R"({"version": 1, "pipeline": [
      {"stage": "guard", "use": "r2r.guard.cpu-fallback", "config": {"max_scan_bytes": 1, "action_types": ["fly"], "x": 1}},
      {"stage": "guard", "use": "r2r.guard.missing"},
      {"stage": "verify", "use": "r2r.guard.cpu-fallback"},
      {"stage": "guard", "use": "test.guard.null_ops"}]})");
  const std::string text = all(problems);
  EXPECT_THAT(text, HasSubstr("/pipeline/0/config/max_scan_bytes"));
  EXPECT_THAT(text, HasSubstr("/pipeline/0/config/action_types/0"));
  EXPECT_THAT(text, HasSubstr("/pipeline/0/config: "));
  EXPECT_THAT(text, HasSubstr("r2r.guard.missing /pipeline/1/use: no such plugin"));
  EXPECT_THAT(text, HasSubstr("/pipeline/2/use: stage 'verify' takes a verifier plugin, but this plugin is a guard"));
  EXPECT_THAT(text, HasSubstr("/pipeline/3/use: plugin is disabled: [capability]"));
}

TEST(PipelineConfig, FileLevelViolationsCarryPointers) {
  const auto problems =
      problems_of(R"({"version": 2, "pipeline": [{"stage": "dance", "use": "Not An Id"}], "extra": 1})");
  const std::string text = all(problems);
  EXPECT_THAT(text, HasSubstr("/version"));
  EXPECT_THAT(text, HasSubstr("/pipeline/0/stage"));
  EXPECT_THAT(text, HasSubstr("/pipeline/0/use"));
  EXPECT_THAT(text, HasSubstr("extra"));
}

TEST(PipelineConfig, SyntaxErrorsGiveThePosition) {
  const auto problems = problems_of("{\"version\": 1,\n \"pipeline\": [\n oops ]}");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0].message, HasSubstr("line 3"));
}

TEST(PipelineConfig, DuplicateStageNamesAndMissingFilesAreReported) {
  auto dup = problems_of(R"({"version": 1, "pipeline": [
      {"stage": "guard", "name": "g", "use": "r2r.guard.cpu-fallback"},
      {"stage": "guard", "name": "g", "use": "r2r.guard.cpu-fallback"}]})");
  ASSERT_EQ(dup.size(), 1u);
  EXPECT_THAT(dup[0].message, HasSubstr("used twice"));
  auto missing = r2r::core::parse_pipeline_file("/nonexistent/pipeline.json");
  ASSERT_EQ(missing.problems.size(), 1u);
  EXPECT_THAT(missing.problems[0].message, HasSubstr("cannot read pipeline file"));
}

TEST(PipelineConfig, InstancesAreCheckedToo) {
  const auto problems = problems_of(R"({"version": 1,
      "instances": {"llm": {"use": "test.llm.echo", "config": {"prefix": 3}}},
      "pipeline": [{"stage": "guard", "use": "r2r.guard.cpu-fallback"}]})");
  ASSERT_EQ(problems.size(), 1u) << all(problems);
  EXPECT_EQ(problems[0].pointer, "/instances/llm/config/prefix");
  EXPECT_EQ(problems[0].plugin_id, "test.llm.echo");
}

TEST(PipelineConfig, ExtendsOverridesEntriesByNameAndAppendsNewOnes) {
  r2r::test::temp_dir tmp;
  tmp.write("base.json", R"({"version": 1, "name": "base", "description": "parent",
      "instances": {"llm": {"use": "r2r.llm.echo"}},
      "pipeline": [{"stage": "guard", "name": "a", "use": "r2r.guard.cpu-fallback"},
                   {"stage": "guard", "name": "b", "use": "r2r.guard.accelerator-swap"}]})");
  const auto child = tmp.write("child.json", R"({"extends": "base.json", "name": "child",
      "pipeline": [{"stage": "guard", "name": "a", "use": "r2r.guard.success-claim"},
                   {"stage": "guard", "name": "c", "use": "r2r.guard.scale-down"}]})");
  auto parsed = r2r::core::parse_pipeline_file(child);
  ASSERT_TRUE(parsed.config.has_value()) << all(parsed.problems);
  const auto& c = *parsed.config;
  EXPECT_EQ(c.name, "child");
  EXPECT_EQ(c.description, "parent");
  ASSERT_EQ(c.stages.size(), 3u);
  EXPECT_EQ(c.stages[0].name, "a");
  EXPECT_EQ(c.stages[0].plugin.use, "r2r.guard.success-claim");  // replaced in place
  EXPECT_EQ(c.stages[1].plugin.use, "r2r.guard.accelerator-swap");
  EXPECT_EQ(c.stages[2].name, "c");  // appended
  EXPECT_EQ(c.instances.count("llm"), 1u);
}

TEST(PipelineConfig, ExtendsRefusesAMissingParentAChainAndABadMergedFile) {
  r2r::test::temp_dir tmp;
  auto missing = r2r::core::parse_pipeline_file(tmp.write("m.json", R"({"extends": "nope.json"})"));
  ASSERT_FALSE(missing.config.has_value());
  EXPECT_EQ(missing.problems.at(0).pointer, "/extends");
  EXPECT_THAT(missing.problems.at(0).message, HasSubstr("cannot read the parent"));

  tmp.write("grand.json", R"({"version": 1, "pipeline": [{"stage": "guard", "use": "r2r.guard.cpu-fallback"}]})");
  tmp.write("parent.json", R"({"extends": "grand.json"})");
  auto chain = r2r::core::parse_pipeline_file(tmp.write("chain.json", R"({"extends": "parent.json"})"));
  ASSERT_FALSE(chain.config.has_value());
  EXPECT_THAT(chain.problems.at(0).message, HasSubstr("one parent only"));

  // The merged document is validated as a whole: a bad stage in the child is reported.
  auto bad = r2r::core::parse_pipeline_file(
      tmp.write("bad.json", R"({"extends": "grand.json", "pipeline": [{"stage": "nonsense", "use": "r2r.guard.x"}]})"));
  ASSERT_FALSE(bad.config.has_value());
  EXPECT_THAT(all(bad.problems), HasSubstr("/pipeline/1/stage"));

  // The honest case: a child with no pipeline of its own is its parent.
  auto same = r2r::core::parse_pipeline_file(tmp.write("same.json", R"({"extends": "grand.json"})"));
  ASSERT_TRUE(same.config.has_value()) << all(same.problems);
  EXPECT_EQ(same.config->stages.size(), 1u);
}

}  // namespace
