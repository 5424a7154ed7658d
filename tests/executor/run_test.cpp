// SPDX-License-Identifier: MIT
// The executor loop with real plugins: the scripted policy fixture, the real r2r.sandbox.local
// (bubblewrap), the in-tree guards and fixture guards that fail.
#include "executor_fixture.hpp"

#include <r2r/executor/trajectory.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

using namespace r2r::executor;
using nlohmann::json;
using r2r::test::guard_stage;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

struct run_result {
  r2r::core::result<run_outcome> outcome;
  std::vector<json> lines;
};

class ExecutorRun : public ::testing::Test {
 protected:
  run_result run_script(const json& script, const std::vector<json>& guards = {}, run_options options = {},
                        const json& usage = json::object()) {
    const auto file = dir.write("pipeline.json", r2r::test::pipeline(script, guards, usage).dump(2));
    live = r2r::test::open_pipeline(file);
    if (!live.session) return {r2r::core::fail(r2r::core::phase::config, "no session"), {}};
    options.run_dir = run_dir();
    options.pipeline_file = file;
    run_result r{r2r::executor::run(*live.session, options), {}};
    r.lines = r2r::test::trajectory(run_dir());
    return r;
  }
  std::filesystem::path run_dir() const { return dir.path() / "run"; }
  r2r::test::temp_dir dir;
  r2r::test::live_pipeline live;
};

TEST_F(ExecutorRun, RunsCommandsRecordsTurnsAndEndsWithGiveUp) {
  auto r = run_script(json::array({json{{"type", "run"}, {"command", "echo hello > a.txt && cat a.txt"}},
                                   json{{"type", "read_file"}, {"path", "a.txt"}},
                                   json{{"type", "give_up"}, {"reason", "done testing"}}}));
  ASSERT_TRUE(r.outcome) << r.outcome.error().to_string();
  EXPECT_EQ(r.outcome->kind, outcome_kind::gave_up);
  EXPECT_EQ(r.outcome->reason, "done testing");
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[0]["observation"]["stdout"], "hello\n");
  EXPECT_EQ(r.lines[1]["observation"]["stdout"], "hello\n");
  EXPECT_EQ(r.lines[0]["decision"]["decision"], "allow");
  EXPECT_EQ(r.lines[1]["state"], (json{{"step", 2}}));
  EXPECT_EQ(r2r::test::read_text(run_dir() / "workspace" / "a.txt"), "hello\n");
  const auto commands = r2r::test::read_lines(run_dir() / "commands.log");
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_THAT(commands[0], HasSubstr("turn 0 exit 0"));
  const auto outcome = json::parse(r2r::test::read_text(run_dir() / "outcome.json"));
  EXPECT_EQ(outcome["outcome"], "gave_up");
}

TEST_F(ExecutorRun, GuardThatThrowsDeniesFailClosed) {
  auto r = run_script(json::array({json{{"type", "run"}, {"command", "touch should-not-exist"}}}),
                      {guard_stage("exploding", "test.guard.throws_everywhere", {{"throw_in_destructor", false}})});
  ASSERT_TRUE(r.outcome) << r.outcome.error().to_string();
  ASSERT_GE(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0]["decision"]["decision"], "deny");
  EXPECT_EQ(r.lines[0]["decision"]["guard"], "exploding");
  EXPECT_THAT(r.lines[0]["decision"]["reason"].get<std::string>(), HasSubstr("exploding"));
  EXPECT_FALSE(r.lines[0].contains("observation"));
  EXPECT_FALSE(std::filesystem::exists(run_dir() / "workspace" / "should-not-exist"));
}

TEST_F(ExecutorRun, GuardReturningGarbageDeniesAndLaterGuardsAreNotAsked) {
  auto r = run_script(json::array({json{{"type", "run"}, {"command", "touch nope"}}}),
                      {guard_stage("garbage", "test.guard.garbage"), guard_stage("cpu", "r2r.guard.cpu-fallback")});
  ASSERT_TRUE(r.outcome) << r.outcome.error().to_string();
  EXPECT_EQ(r.lines[0]["decision"]["decision"], "deny");
  EXPECT_EQ(r.lines[0]["decision"]["guard"], "garbage");
  EXPECT_FALSE(std::filesystem::exists(run_dir() / "workspace" / "nope"));
}

TEST_F(ExecutorRun, RealGuardDeniesAndPolicySeesTheReason) {
  auto r = run_script(
      json::array({json{{"type", "run"}, {"command", "CUDA_VISIBLE_DEVICES= python3 -c 1"}},
                   json{{"type", "run"}, {"command", "true"}}}),
      {guard_stage("cpu-fallback", "r2r.guard.cpu-fallback"), guard_stage("success-claim", "r2r.guard.success-claim")});
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.lines[0]["decision"]["decision"], "deny");
  EXPECT_EQ(r.lines[0]["decision"]["guard"], "cpu-fallback");
  EXPECT_EQ(r.lines[1]["decision"]["decision"], "allow");
}

TEST_F(ExecutorRun, InvalidActionIsADeniedTurnNotACrash) {
  auto r = run_script(json::array(
      {json{{"type", "run"}}, json{{"type", "fly"}, {"to", "moon"}}, json{{"type", "give_up"}, {"reason", "x"}}}));
  ASSERT_TRUE(r.outcome) << r.outcome.error().to_string();
  EXPECT_EQ(r.outcome->kind, outcome_kind::gave_up);
  ASSERT_EQ(r.lines.size(), 3u);
  for (int i : {0, 1}) {
    EXPECT_EQ(r.lines[i]["decision"]["decision"], "deny");
    EXPECT_EQ(r.lines[i]["decision"]["guard"], "executor");
    EXPECT_THAT(r.lines[i]["decision"]["reason"].get<std::string>(), HasSubstr("invalid action"));
  }
  EXPECT_THAT(r.lines[0]["decision"]["reason"].get<std::string>(), HasSubstr("command"));
}

TEST_F(ExecutorRun, SuccessClaimNeedsTheVerifier) {
  const json script = json::array({json{{"type", "claim_success"}, {"reason", "it printed ok"}}});
  auto denied = run_script(script, {guard_stage("success-claim", "r2r.guard.success-claim")});
  ASSERT_TRUE(denied.outcome);
  EXPECT_EQ(denied.lines[0]["decision"]["decision"], "deny");
  EXPECT_NE(denied.outcome->kind, outcome_kind::claimed);

  std::filesystem::remove_all(run_dir());
  run_options o;
  o.verify = [] { return std::pair{true, true}; };
  auto claimed = run_script(script, {guard_stage("success-claim", "r2r.guard.success-claim")}, o);
  ASSERT_TRUE(claimed.outcome);
  EXPECT_EQ(claimed.outcome->kind, outcome_kind::claimed);
  EXPECT_EQ(claimed.lines.size(), 1u);
}

TEST_F(ExecutorRun, TurnCap) {
  run_options o;
  o.caps.max_turns = 3;
  auto r =
      run_script(json::array({json{{"type", "run"}, {"command", "true"}}, json{{"type", "run"}, {"command", "true"}},
                              json{{"type", "run"}, {"command", "true"}}, json{{"type", "run"}, {"command", "true"}}}),
                 {}, o);
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->kind, outcome_kind::cap_reached);
  EXPECT_THAT(r.outcome->reason, HasSubstr("max_turns"));
  EXPECT_EQ(r.lines.size(), 3u);
}

TEST_F(ExecutorRun, SecondsCap) {
  run_options o;
  o.caps.max_seconds = 0.3;
  auto r = run_script(
      json::array({json{{"type", "run"}, {"command", "sleep 0.5"}}, json{{"type", "run"}, {"command", "true"}}}), {},
      o);
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->kind, outcome_kind::cap_reached);
  EXPECT_THAT(r.outcome->reason, HasSubstr("max_seconds"));
  EXPECT_THAT(r.outcome->reason, HasSubstr("over by"));
  EXPECT_EQ(r.lines.size(), 1u);
}

TEST_F(ExecutorRun, TokenCapWithOvershoot) {
  run_options o;
  o.caps.max_tokens = 250;
  auto r =
      run_script(json::array({json{{"type", "run"}, {"command", "true"}}, json{{"type", "run"}, {"command", "true"}},
                              json{{"type", "run"}, {"command", "true"}}}),
                 {}, o, json{{"input_tokens", 100}, {"output_tokens", 20}});
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->kind, outcome_kind::cap_reached);
  EXPECT_THAT(r.outcome->reason, HasSubstr("max_tokens: 360 tokens used of 250 (over by 110)"));
  EXPECT_EQ(r.lines.size(), 3u);
}

TEST_F(ExecutorRun, UsdCap) {
  run_options o;
  o.caps.max_usd = 0.05;
  auto r =
      run_script(json::array({json{{"type", "run"}, {"command", "true"}}, json{{"type", "run"}, {"command", "true"}}}),
                 {}, o, json{{"cost_usd", 0.04}});
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->kind, outcome_kind::cap_reached);
  EXPECT_THAT(r.outcome->reason, HasSubstr("max_usd"));
  EXPECT_EQ(r.lines.size(), 2u);
}

TEST_F(ExecutorRun, StuckDetectorHintsThenStops) {
  run_options o;
  o.stuck = {2, 2};
  json script = json::array();
  for (int i = 0; i < 8; ++i)
    script.push_back({{"type", "run"}, {"command", "echo 'ImportError: libamdhip64.so' >&2; exit 1"}});
  auto r = run_script(script, {}, o);
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->kind, outcome_kind::stuck);
  EXPECT_THAT(r.outcome->reason, HasSubstr("ImportError: libamdhip<n>.so"));
  ASSERT_EQ(r.lines.size(), 4u);
  EXPECT_TRUE(r.lines[1]["hints"].empty());
  ASSERT_EQ(r.lines[2]["hints"].size(), 1u) << "the hint goes with the propose after the second repeat";
  EXPECT_EQ(r.lines[2]["hints"][0]["source"], "stuck_detector");
  EXPECT_THAT(r.lines[2]["rationale"].get<std::string>(), HasSubstr("hints: 1"));
  EXPECT_EQ(r.lines[0]["observation"]["error_signature"], "ImportError: libamdhip<n>.so");
}

TEST_F(ExecutorRun, LargeOutputIsCompactedInTheTrajectory) {
  run_options o;
  o.compaction.max_bytes = 2000;
  auto r = run_script(json::array({json{{"type", "run"}, {"command", "seq 1 100000"}}}), {}, o);
  ASSERT_TRUE(r.outcome);
  const auto out = r.lines[0]["observation"]["stdout"].get<std::string>();
  EXPECT_LE(out.size(), 2000u);
  EXPECT_EQ(out.substr(0, 2), "1\n");
  EXPECT_THAT(out, HasSubstr("100000\n"));
  EXPECT_THAT(out, HasSubstr("bytes cut by the executor"));
  EXPECT_TRUE(r.lines[0]["observation"]["truncated"].get<bool>());
}

TEST_F(ExecutorRun, SecretsNeverReachTrajectoryOrCommandsLog) {
  const std::string env_secret = "r2r-test-secret-value-9f8e7d";
  ::setenv("R2R_TEST_API_KEY", env_secret.c_str(), 1);
  const std::string shaped = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX0123";
  auto r = run_script(json::array(
      {json{{"type", "run"}, {"command", "echo " + env_secret + "; echo " + shaped + " >&2"}},
       json{{"type", "write_file"}, {"path", "cfg.env"}, {"content", "OPENAI_API_KEY=" + shaped}},
       json{{"type", "read_file"}, {"path", "cfg.env"}}, json{{"type", "give_up"}, {"reason", "key " + env_secret}}}));
  ::unsetenv("R2R_TEST_API_KEY");
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r2r::test::read_text(run_dir() / "workspace" / "cfg.env"), "OPENAI_API_KEY=" + shaped)
      << "the action itself runs unredacted";
  for (const auto* file : {"trajectory.jsonl", "commands.log", "outcome.json"}) {
    const auto text = r2r::test::read_text(run_dir() / file);
    EXPECT_THAT(text, Not(HasSubstr(env_secret))) << file;
    EXPECT_THAT(text, Not(HasSubstr("ABCDEFGHIJKLMNOPQRSTUVWX0123"))) << file;
    EXPECT_THAT(text, HasSubstr("[REDACTED]")) << file;
  }
}

TEST_F(ExecutorRun, FailedRiskyStepIsRolledBack) {
  const std::string bad_patch = "--- a/train.py\n+++ b/train.py\n@@ -1 +1 @@\n-this line is not there\n+x = 2\n";
  auto r = run_script(json::array({json{{"type", "write_file"}, {"path", "train.py"}, {"content", "x = 1\n"}},
                                   json{{"type", "write_file"}, {"path", "requirements.txt"}, {"content", "torch\n"}},
                                   json{{"type", "apply_patch"}, {"patch", bad_patch}},
                                   json{{"type", "install"}, {"command", "pip install --no-index r2r-no-such-pkg"}},
                                   json{{"type", "run"}, {"command", "cat train.py requirements.txt; ls"}}}));
  ASSERT_TRUE(r.outcome) << r.outcome.error().to_string();
  ASSERT_GE(r.lines.size(), 5u);
  // write_file on a build file is risky: checkpoint before, success, no rollback.
  ASSERT_TRUE(r.lines[1].contains("checkpoint"));
  EXPECT_FALSE(r.lines[1].contains("rollback"));
  // The failed patch: checkpointed before, rolled back after.
  EXPECT_NE(r.lines[2]["observation"]["exit_code"], 0);
  ASSERT_TRUE(r.lines[2].contains("rollback")) << r.lines[2].dump();
  EXPECT_EQ(r.lines[2]["rollback"]["to"], "before-apply_patch");
  EXPECT_TRUE(r.lines[2]["rollback"]["ok"].get<bool>());
  EXPECT_NE(r.lines[3]["observation"]["exit_code"], 0);
  ASSERT_TRUE(r.lines[3].contains("rollback"));
  EXPECT_EQ(r.lines[4]["observation"]["stdout"], "x = 1\ntorch\nrequirements.txt\ntrain.py\n")
      << "no .rej/.orig files or half-applied patch survive";
}

TEST_F(ExecutorRun, CheckpointAndRollbackActions) {
  auto r = run_script(json::array(
      {json{{"type", "run"}, {"command", "echo one > f"}}, json{{"type", "checkpoint"}, {"label", "one"}},
       json{{"type", "run"}, {"command", "echo two > f; touch g"}}, json{{"type", "rollback"}, {"to", "one"}},
       json{{"type", "rollback"}, {"to", "never-taken"}}, json{{"type", "run"}, {"command", "cat f; ls"}}}));
  ASSERT_TRUE(r.outcome);
  ASSERT_GE(r.lines.size(), 6u);
  EXPECT_EQ(r.lines[1]["checkpoint"][0]["label"], "one");
  EXPECT_EQ(r.lines[3]["rollback"]["to"], "one");
  EXPECT_NE(r.lines[4]["observation"]["exit_code"], 0);
  EXPECT_THAT(r.lines[4]["observation"]["stderr"].get<std::string>(), HasSubstr("never-taken"));
  EXPECT_EQ(r.lines[5]["observation"]["stdout"], "one\nf\n");
}

TEST_F(ExecutorRun, MilestoneCheckpointAfterSuccessfulBuild) {
  auto r = run_script(json::array({json{{"type", "build_kernel"}, {"command", "echo built > k.o"}}}));
  ASSERT_TRUE(r.outcome);
  ASSERT_TRUE(r.lines[0].contains("checkpoint"));
  EXPECT_EQ(r.lines[0]["checkpoint"].back()["label"], "build_kernel");
  EXPECT_TRUE(std::filesystem::exists(run_dir() / r.lines[0]["checkpoint"].back()["archive"].get<std::string>()));
}

TEST_F(ExecutorRun, HintsProviderAndOutcomeCallback) {
  run_options o;
  std::vector<outcome_event> events;
  o.hints_provider = [](const turn_record& last) {
    std::vector<hint> h;
    if (last.failed()) h.push_back(hint{"memory", "last time: install timm", nlohmann::json(), "test"});
    return h;
  };
  o.on_outcome = [&](const outcome_event& e) { events.push_back(e); };
  auto r = run_script(json::array({json{{"type", "run"}, {"command", "echo 'ModuleNotFoundError: timm' >&2; false"}},
                                   json{{"type", "run"}, {"command", "true"}}}),
                      {}, o);
  ASSERT_TRUE(r.outcome);
  ASSERT_EQ(r.lines[1]["hints"].size(), 1u);
  EXPECT_EQ(r.lines[1]["hints"][0]["source"], "memory");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].signature, "ModuleNotFoundError: timm");
  EXPECT_TRUE(events[0].fixed);
  EXPECT_EQ(events[0].fix_action["command"], "true");
}

TEST_F(ExecutorRun, ResumeDiscardsATornLastLineAndContinues) {
  const json script = json::array(
      {json{{"type", "run"}, {"command", "echo a >> log"}}, json{{"type", "run"}, {"command", "echo b >> log"}},
       json{{"type", "run"}, {"command", "echo c >> log"}}, json{{"type", "give_up"}, {"reason", "end"}}});
  // Stop after two turns (the turn cap), then make it look like a crash in turn 2: no outcome, a
  // half-written line 2, and turn 2's command half done in the workspace (plus a stray file).
  run_options o;
  o.caps.max_turns = 2;
  auto first = run_script(script, {}, o);
  ASSERT_TRUE(first.outcome);
  ASSERT_EQ(first.lines.size(), 2u);
  std::filesystem::remove(run_dir() / "outcome.json");
  auto record = json::parse(r2r::test::read_text(run_dir() / "run.json"));
  record["options"]["caps"]["max_turns"] = 40;
  dir.write("run/run.json", record.dump());
  const auto traj = run_dir() / "trajectory.jsonl";
  const std::string half = first.lines[1].dump().substr(0, 40);
  {
    std::ofstream out(traj, std::ios::app | std::ios::binary);
    out << half;
  }
  dir.write("run/workspace/log", "a\nb\nc\n");
  dir.write("run/workspace/stray.tmp", "partial");

  std::vector<std::string> reports;
  auto resumed =
      r2r::executor::resume(*live.session, run_dir(), {}, [&](const std::string& s) { reports.push_back(s); });
  ASSERT_TRUE(resumed) << resumed.error().to_string();
  EXPECT_EQ(resumed->kind, outcome_kind::gave_up);
  bool torn_reported = false;
  for (const auto& s : reports) torn_reported = torn_reported || s.find("torn") != std::string::npos;
  EXPECT_TRUE(torn_reported);
  const auto after = r2r::test::trajectory(run_dir());
  ASSERT_EQ(after.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(after[i]["action"], script[i]);
    EXPECT_EQ(after[i]["turn"], static_cast<int>(i));
  }
  EXPECT_EQ(after[0], first.lines[0]) << "recorded lines stay byte for byte";
  EXPECT_EQ(after[2]["state"], (json{{"step", 3}})) << "the policy continued from the recorded state";
  EXPECT_EQ(r2r::test::read_text(run_dir() / "workspace" / "log"), "a\nb\nc\n")
      << "the workspace came back to turn 1's snapshot and turn 2 ran once";
  EXPECT_FALSE(std::filesystem::exists(run_dir() / "workspace" / "stray.tmp"));
}

TEST_F(ExecutorRun, ResumeRefusesAChangedPipeline) {
  auto r = run_script(json::array({json{{"type", "run"}, {"command", "true"}}}));
  ASSERT_TRUE(r.outcome);
  std::filesystem::remove(run_dir() / "outcome.json");
  dir.write("pipeline.json", r2r::test::pipeline(json::array(), {}).dump(2));
  auto resumed = r2r::executor::resume(*live.session, run_dir());
  ASSERT_FALSE(resumed);
  EXPECT_THAT(resumed.error().message, HasSubstr("pipeline file changed"));
}

TEST_F(ExecutorRun, NonEmptyRunDirIsRefused) {
  dir.write("run/something", "x");
  auto r = run_script(json::array());
  ASSERT_FALSE(r.outcome);
  EXPECT_THAT(r.outcome.error().message, HasSubstr("resume"));
}

}  // namespace
