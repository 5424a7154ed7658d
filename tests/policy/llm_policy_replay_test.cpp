// SPDX-License-Identifier: MIT
// r2r.policy.llm as a pipeline stage with r2r.llm.replay as the pipeline's `llm` instance answering
// from inline cassettes in the recorded response format. The cassettes' requests come from the
// hand-reviewed golden files in plugins/policy/llm/test/golden (the whole first request of the
// failed-workload turn, its system prompt, the feedback template), not from the policy's prompt
// functions: a changed prompt is a replay mismatch, and the PinnedPrompt tests compare the prompt
// functions with the golden files byte for byte.
#include "../unit/golden_file.hpp"
#include "../unit/test_support.hpp"
#include "knowledge_base.hpp"
#include "prompt.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using nlohmann::json;
using namespace r2r::plugins::policy;
using r2r::sdk::llm::content_block;
using ::testing::HasSubstr;

json recorded(json content, std::string stop_reason, int input_tokens, double cost) {
  return json{
      {"id", "msg_policy"},
      {"model", "claude-sonnet-4-5"},
      {"provider", "anthropic"},
      {"content", std::move(content)},
      {"stop_reason", std::move(stop_reason)},
      {"provider_stop_reason", "tool_use"},
      {"usage",
       {{"input_tokens", input_tokens}, {"output_tokens", 60}, {"cache_read_tokens", 100}, {"cache_write_tokens", 0}}},
      {"latency_ms", 800},
      {"attempts", 1},
      {"cost_usd", cost}};
}

r2r::sdk::policy::propose_request failed_workload() {
  r2r::sdk::policy::propose_request r;
  r.turn = 2;
  r.plan = json{{"arch", "gfx942"},
                {"install_steps", json::array({{{"id", "pip-requirements"},
                                                {"kind", "pip"},
                                                {"command", "pip install -r requirements.txt"},
                                                {"reason", "requirements.txt"}}})},
                {"workload", {{"command", "python train.py --epochs 1"}, {"kind", "train"}}}};
  r2r::sdk::policy::turn_record t0;
  t0.turn = 0;
  t0.action = {{"type", "run"}, {"command", "pip install -r requirements.txt"}};
  t0.observed = true;
  t0.stdout_text = "Successfully installed einops-0.8.0";
  r2r::sdk::policy::turn_record t1;
  t1.turn = 1;
  t1.action = {{"type", "run_workload"}, {"command", "python train.py --epochs 1"}};
  t1.observed = true;
  t1.exit_code = 1;
  t1.stderr_text = "ModuleNotFoundError: No module named 'timm'";
  r.history = {t0, t1};
  r.context.arch = "gfx942";
  r.context.image = "rocm/pytorch:rocm7.0_ubuntu24.04_py3.12_pytorch_release_2.7.1";
  return r;
}

std::filesystem::path golden(const std::string& name) {
  return std::filesystem::path(R2R_POLICY_GOLDEN) / name;
}

/// The reviewed first request of the failed-workload turn.
r2r::sdk::llm::complete_request golden_request() {
  return json::parse(r2r::test::read_golden(golden("request.failed_workload.json")))
      .get<r2r::sdk::llm::complete_request>();
}

/// The reviewed system prompt of the failed-workload turn.
std::string golden_system() {
  return r2r::test::read_golden(golden("system_prompt.failed_workload.txt"));
}

/// The reviewed feedback after a reply without a tool call, saying `problem`.
r2r::sdk::llm::message golden_feedback(const std::string& problem) {
  std::string text = r2r::test::read_golden(golden("feedback.txt"));
  text.replace(text.find("{problem}"), 9, problem);
  return {"user", {content_block::make_text(text)}};
}

// The prompt functions against the reviewed golden files, byte for byte. The golden files say what
// the design requires (GPU only, no stubs, no NVIDIA wheels, no silent SDPA swap, no
// HSA_OVERRIDE_GFX_VERSION, success only from the verifier); see docs/policies.md.
TEST(PinnedPrompt, SystemPromptIsTheReviewedGoldenText) {
  const std::string m = r2r::test::golden_mismatch(golden("system_prompt.failed_workload.txt"),
                                                   system_prompt(failed_workload(), knowledge_base::builtin()));
  EXPECT_TRUE(m.empty()) << m;
}

TEST(PinnedPrompt, RenderedRequestIsTheReviewedGoldenRequest) {
  const auto request = build_request(failed_workload(), knowledge_base::builtin(), prompt_options{});
  const std::string m =
      r2r::test::golden_mismatch(golden("request.failed_workload.json"), json(request).dump(2) + "\n");
  EXPECT_TRUE(m.empty()) << m;
}

TEST(PinnedPrompt, FeedbackIsTheReviewedGoldenTemplate) {
  const auto reply = recorded(json::array({{{"type", "text"}, {"text", "prose"}}}), "end_turn", 1, 0)
                         .get<r2r::sdk::llm::complete_response>();
  const auto m = feedback_message(reply, "{problem}");
  ASSERT_EQ(m.content.size(), 1u);
  const std::string mismatch = r2r::test::golden_mismatch(golden("feedback.txt"), m.content[0].text);
  EXPECT_TRUE(mismatch.empty()) << mismatch;
}

TEST(PinnedPrompt, GoldenFilesSayWhatTheDesignRequires) {
  const std::string system = golden_system();
  for (const char* rule :
       {"never fall back to the CPU", "never hide the GPU", "never reduce the model, data, batch size or steps",
        "No stubs", "Never install NVIDIA wheels",
        "Never swap flash-attn or another accelerated component for "
        "SDPA",
        "Never set HSA_OVERRIDE_GFX_VERSION", "Success is decided only by the verifier",
        "printed markers are never evidence"}) {
    EXPECT_THAT(system, HasSubstr(rule));
  }
  EXPECT_EQ(golden_request().system, system);
}

class LlmPolicyReplay : public ::testing::Test {
 protected:
  LlmPolicyReplay() {
    auto loaded = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
    if (!loaded) throw std::runtime_error(loaded.error().to_string());
    registry = std::make_unique<r2r::core::plugin_registry>(std::move(*loaded));
  }

  /// One propose call through a pipeline whose llm replays `exchanges`.
  json propose(const r2r::sdk::policy::propose_request& request, const json& exchanges, const json& config) {
    const json file{
        {"version", 1},
        {"instances",
         {{"llm", {{"use", "r2r.llm.replay"}, {"config", {{"mode", "replay"}, {"exchanges", exchanges}}}}}}},
        {"pipeline", {{{"stage", "policy"}, {"name", "policy"}, {"use", "r2r.policy.llm"}, {"config", config}}}}};
    auto parsed = r2r::core::parse_pipeline_text(file.dump(), tmp.path() / "pipeline.json");
    if (!parsed.problems.empty()) ADD_FAILURE() << parsed.problems.front().to_string();
    if (!parsed.config) return json();
    auto session = r2r::core::pipeline_session::create(*parsed.config, *registry);
    if (!session) {
      ADD_FAILURE() << session.error().to_string();
      return json();
    }
    auto response = (*session)->stages().front().instance->call("propose", json(request));
    if (!response) {
      ADD_FAILURE() << response.error().message;
      return json();
    }
    return *response;
  }

  r2r::test::temp_dir tmp;
  std::unique_ptr<r2r::core::plugin_registry> registry;
};

TEST_F(LlmPolicyReplay, AToolCallBecomesTheProposedActionWithUsage) {
  const auto request = failed_workload();
  const auto llm_request = golden_request();
  const json answer = recorded(json::array({{{"type", "text"}, {"text", "timm is missing; install it."}},
                                            {{"type", "tool_call"},
                                             {"id", "toolu_01"},
                                             {"name", "install"},
                                             {"arguments", {{"manager", "pip"}, {"packages", {"timm"}}}}}}),
                               "tool_use", 5200, 0.021);
  const json r = propose(request, json::array({{{"request", llm_request}, {"response", answer}}}), json::object());
  EXPECT_EQ(r.at("action"), (json{{"type", "install"}, {"manager", "pip"}, {"packages", {"timm"}}}));
  EXPECT_EQ(r.at("rationale"), "timm is missing; install it.");
  EXPECT_EQ(r.at("usage").at("input_tokens"), 5300) << "cached input tokens count too";
  EXPECT_EQ(r.at("usage").at("output_tokens"), 60);
  EXPECT_DOUBLE_EQ(r.at("usage").at("cost_usd").get<double>(), 0.021);
}

TEST_F(LlmPolicyReplay, MalformedRepliesGetFeedbackThenTheTurnGivesUp) {
  const auto request = failed_workload();
  auto first = golden_request();
  const json prose =
      recorded(json::array({{{"type", "text"}, {"text", "I would install timm."}}}), "end_turn", 5000, 0.02);
  const json bad_call = recorded(
      json::array(
          {{{"type", "tool_call"}, {"id", "toolu_02"}, {"name", "install"}, {"arguments", {{"manager", "pip"}}}}}),
      "tool_use", 5100, 0.02);
  auto second = first;
  const auto prose_reply = prose.get<r2r::sdk::llm::complete_response>();
  second.messages.push_back(assistant_message(prose_reply));
  second.messages.push_back(golden_feedback("the reply has no tool call"));
  const json r = propose(
      request, json::array({{{"request", first}, {"response", prose}}, {{"request", second}, {"response", bad_call}}}),
      json{{"max_invalid_replies", 2}});
  ASSERT_EQ(r.at("action").at("type"), "give_up") << r.dump(2);
  EXPECT_EQ(r.at("action").at("reason"),
            "the model gave no usable action in 2 replies; last problem: install needs the argument 'packages'");
  EXPECT_EQ(r.at("usage").at("input_tokens"), 10300);
  EXPECT_EQ(r.at("state").at("replies"), 2);
}

TEST_F(LlmPolicyReplay, TrimmedContextIsWhatTheModelSees) {
  auto request = failed_workload();
  for (int i = 0; i < 40; ++i) {
    r2r::sdk::policy::turn_record t = request.history[1];
    t.turn = static_cast<std::int64_t>(request.history.size());
    t.stderr_text = std::string(4000, 'e') + "\nModuleNotFoundError: No module named 'timm'";
    request.history.push_back(t);
  }
  request.turn = static_cast<std::int64_t>(request.history.size());
  prompt_options opts;
  opts.context_budget_tokens = 8000;
  opts.keep_last_turns = 3;
  // The trimmed history comes from the renderer; the rules come from the reviewed golden system prompt.
  auto llm_request = build_request(request, knowledge_base::builtin(), opts);
  llm_request.system = golden_system();
  EXPECT_LE(estimate_tokens(llm_request), 8000);
  const json answer = recorded(json::array({{{"type", "tool_call"},
                                             {"id", "toolu_03"},
                                             {"name", "give_up"},
                                             {"arguments", {{"reason", "timm keeps failing to import"}}}}}),
                               "tool_use", 7000, 0.03);
  const json r = propose(request, json::array({{{"request", llm_request}, {"response", answer}}}),
                         json{{"context_budget_tokens", 8000}, {"keep_last_turns", 3}});
  EXPECT_EQ(r.at("action"), (json{{"type", "give_up"}, {"reason", "timm keeps failing to import"}}));

  // A request rendered with another budget is a different request: replay refuses it, and the
  // failed llm call ends the turn with give_up naming it.
  const json other = propose(request, json::array({{{"request", llm_request}, {"response", answer}}}),
                             json{{"context_budget_tokens", 60000}, {"keep_last_turns", 3}});
  EXPECT_EQ(other.at("action").at("type"), "give_up");
  EXPECT_THAT(other.at("action").at("reason").get<std::string>(), ::testing::StartsWith("the llm call failed: "));
  EXPECT_THAT(other.at("action").at("reason").get<std::string>(), HasSubstr("replay_mismatch"));
}

}  // namespace
