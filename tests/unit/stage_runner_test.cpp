// SPDX-License-Identifier: MIT
#include "test_support.hpp"

#include <r2r/core/stage_runner.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using ::testing::HasSubstr;

class StageRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
    ASSERT_TRUE(loaded.has_value());
    registry = std::move(*loaded);
    auto parsed = r2r::core::parse_pipeline_text(R"({"version": 1, "pipeline": [
        {"stage": "guard", "name": "g1", "use": "r2r.guard.cpu-fallback"},
        {"stage": "guard", "name": "g2", "use": "r2r.guard.cpu-fallback", "config": {"action_types": ["run"]}},
        {"stage": "verify", "name": "v", "use": "r2r.guard.cpu-fallback"}]})",
                                                 "p.json");
    ASSERT_TRUE(parsed.config.has_value());
    config = *parsed.config;
  }
  r2r::core::plugin_registry registry;
  r2r::core::pipeline_config config;
};

TEST_F(StageRunner, SessionRefusesAnInvalidPipelineBeforeCreatingAnything) {
  auto session = r2r::core::pipeline_session::create(config, registry);
  ASSERT_FALSE(session.has_value());
  EXPECT_EQ(session.error().where, r2r::core::phase::config);
  EXPECT_THAT(session.error().message, HasSubstr("stage 'verify' takes a verifier plugin"));
}

TEST_F(StageRunner, RunsGroupsInFileOrderAndStopsAtAMissingHandler) {
  config.stages.pop_back();
  config.stages.push_back(config.stages.front());
  config.stages.back().stage = "guard";
  config.stages.back().name = "g3";
  auto session = r2r::core::pipeline_session::create(config, registry);
  ASSERT_TRUE(session.has_value()) << session.error().to_string();
  const auto groups = r2r::core::stage_runner::groups_of(**session);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].members.size(), 3u);

  r2r::core::stage_runner runner;
  std::vector<std::string> decisions;
  runner.on("guard", [&](r2r::core::stage_context& ctx) -> r2r::core::result<void> {
    for (const auto& m : ctx.group.members) {
      auto d = m.instance->call("check_action", {{"action", {{"type", "write_file"}, {"content", "device='cpu'"}}}});
      if (!d) return tl::unexpected(d.error());
      decisions.push_back(m.stage->name + ":" + (*d)["decision"].get<std::string>());
    }
    ctx.state["guarded"] = true;
    return {};
  });
  nlohmann::json state;
  auto reports = runner.run(**session, state);
  ASSERT_TRUE(reports.has_value());
  ASSERT_EQ(reports->size(), 1u);
  EXPECT_TRUE(reports->front().ok);
  EXPECT_EQ(decisions, (std::vector<std::string>{"g1:deny", "g2:allow", "g3:deny"}));
  EXPECT_EQ(state["guarded"], true);

  r2r::core::stage_runner empty;
  auto missing = empty.run(**session, state);
  ASSERT_FALSE(missing.has_value());
  EXPECT_THAT(missing.error().message, HasSubstr("stage 'guard' has no handler"));
}

TEST_F(StageRunner, AFailingStageIsReportedAndCancellationStopsTheRun) {
  config.stages.pop_back();
  auto cancel = std::make_shared<r2r::core::cancel_token>();
  auto session = r2r::core::pipeline_session::create(config, registry, cancel);
  ASSERT_TRUE(session.has_value());
  r2r::core::stage_runner runner;
  runner.on("guard", [](r2r::core::stage_context&) -> r2r::core::result<void> {
    return r2r::core::fail(r2r::core::phase::run, "guard chain broke");
  });
  nlohmann::json state;
  auto reports = runner.run(**session, state);
  ASSERT_TRUE(reports.has_value());
  ASSERT_EQ(reports->size(), 1u);
  EXPECT_FALSE(reports->front().ok);
  EXPECT_THAT(reports->front().error, HasSubstr("guard chain broke"));
  cancel->cancel();
  auto cancelled = runner.run(**session, state);
  ASSERT_FALSE(cancelled.has_value());
  EXPECT_THAT(cancelled.error().message, HasSubstr("cancelled"));
}

TEST_F(StageRunner, ASequenceResumesFromMarkersAndRerunsWhatChanged) {
  config.stages.pop_back();
  auto session = r2r::core::pipeline_session::create(config, registry);
  ASSERT_TRUE(session.has_value()) << session.error().to_string();
  r2r::test::temp_dir tmp;
  const auto dir = tmp.path();
  std::vector<std::string> ran;
  std::vector<std::string> restored;
  r2r::core::stage_runner runner;
  runner.on(
      "one",
      [&](r2r::core::stage_context& ctx) -> r2r::core::result<void> {
        ran.push_back("one");
        tmp.write("one.txt", "1");
        ctx.output.outputs = {"one.txt"};
        ctx.output.results = {{"n", 1}};
        return {};
      },
      [&](const nlohmann::json& results) -> r2r::core::result<void> {
        restored.push_back("one:" + results.dump());
        return {};
      });
  runner.on(
      "guard",
      [&](r2r::core::stage_context& ctx) -> r2r::core::result<void> {
        ran.push_back("guard:" + std::to_string(ctx.group.members.size()));
        return {};
      },
      [&](const nlohmann::json&) -> r2r::core::result<void> { return {}; });
  runner.on("last", [&](r2r::core::stage_context&) -> r2r::core::result<void> {
    ran.push_back("last");
    return r2r::core::fail(r2r::core::phase::usage, "bad input");
  });
  r2r::core::sequence_options options;
  options.run_dir = [&] { return dir; };
  std::vector<std::string> finished;
  options.finished = [&](const r2r::core::stage_report& r) { finished.push_back(r.stage + " " + r.status); };
  nlohmann::json state;
  const std::vector<std::string> order{"one", "guard", "last", "never"};
  auto first = runner.run_sequence(**session, order, state, options);
  EXPECT_EQ(ran, (std::vector<std::string>{"one", "guard:2", "last"}));
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first.back().status, "failed");
  EXPECT_TRUE(first.back().usage);
  EXPECT_EQ(first.back().output.message, "bad input");
  EXPECT_TRUE(std::filesystem::exists(r2r::core::stage_runner::marker(dir, "one")));

  // Again: the completed resumable stages are resumed, not run.
  ran.clear();
  finished.clear();
  runner.run_sequence(**session, order, state, options);
  EXPECT_EQ(ran, (std::vector<std::string>{"last"}));
  EXPECT_EQ(restored, (std::vector<std::string>{"one:{\"n\":1}"}));
  EXPECT_EQ(finished, (std::vector<std::string>{"one resumed", "guard resumed", "last failed"}));

  // An output that changed size makes its stage run again, and every later marker goes.
  tmp.write("one.txt", "changed");
  ran.clear();
  runner.run_sequence(**session, order, state, options);
  EXPECT_EQ(ran, (std::vector<std::string>{"one", "guard:2", "last"}));

  // A stage nobody handles is unavailable, never skipped.
  finished.clear();
  r2r::core::stage_runner partial;
  partial.on("one", [](r2r::core::stage_context&) -> r2r::core::result<void> { return {}; });
  auto reports = partial.run_sequence(**session, {"one", "missing", "one"}, state, {});
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports.back().status, "unavailable");
}

}  // namespace
