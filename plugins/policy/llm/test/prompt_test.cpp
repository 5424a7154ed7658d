// SPDX-License-Identifier: MIT
// r2r.policy.llm's tools, reply parsing, prompt and history rendering within the context budget.
#include "prompt.hpp"
#include "tools.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::policy;
using nlohmann::json;
using r2r::sdk::llm::content_block;
using r2r::sdk::policy::propose_request;
using r2r::sdk::policy::turn_record;
using ::testing::HasSubstr;

r2r::sdk::llm::complete_response reply(std::vector<content_block> content) {
  r2r::sdk::llm::complete_response r;
  r.content = std::move(content);
  r.stop_reason = "tool_use";
  return r;
}

turn_record turn(std::int64_t n, json action, int exit_code, std::string err) {
  turn_record t;
  t.turn = n;
  t.action = std::move(action);
  t.observed = true;
  t.exit_code = exit_code;
  t.stderr_text = std::move(err);
  return t;
}

propose_request request_with(std::vector<turn_record> history) {
  propose_request r;
  r.turn = history.empty() ? 0 : history.back().turn + 1;
  r.plan = json{
      {"arch", "gfx942"},
      {"install_steps", json::array({{{"id", "pip"}, {"kind", "pip"}, {"command", "pip install -r r.txt"}}})},
      {"workload", {{"command", "python train.py"}, {"kind", "train"}}},
      {"hazards", json::array({{{"kind", "flash_attn"}, {"severity", "warning"}, {"detail", "uses flash-attn"}}})}};
  r.history = std::move(history);
  r.context.arch = "gfx942";
  r.context.image = "rocm/pytorch:rocm7.0_ubuntu24.04_py3.12_pytorch_release_2.7.1";
  return r;
}

TEST(LlmTools, OneToolPerActionTypeWithStrictSchemas) {
  std::vector<std::string> names;
  for (const auto& t : action_tools()) {
    names.push_back(t.name);
    EXPECT_EQ(t.parameters.at("additionalProperties"), false) << t.name;
    EXPECT_FALSE(t.parameters.at("required").empty()) << t.name;
  }
  EXPECT_THAT(names, ::testing::ElementsAre("run", "read_file", "write_file", "apply_patch", "install", "switch_image",
                                            "build_kernel", "run_workload", "checkpoint", "rollback", "claim_success",
                                            "give_up"));
}

TEST(LlmTools, AToolCallBecomesTheAction) {
  const auto p = parse_reply(
      reply({content_block::make_text("timm is missing"),
             content_block::make_tool_call("c1", "install", {{"manager", "pip"}, {"packages", {"timm"}}})}));
  ASSERT_TRUE(p.action) << p.problem;
  EXPECT_EQ(*p.action, (json{{"type", "install"}, {"manager", "pip"}, {"packages", {"timm"}}}));
}

TEST(LlmTools, UnusableRepliesSayWhatIsWrong) {
  EXPECT_EQ(parse_reply(reply({content_block::make_text("I would install timm")})).problem,
            "the reply has no tool call");
  EXPECT_EQ(parse_reply(reply({content_block::make_tool_call("a", "run", {{"command", "ls"}}),
                               content_block::make_tool_call("b", "run", {{"command", "pwd"}})}))
                .problem,
            "the reply has 2 tool calls; exactly one is allowed per turn");
  EXPECT_EQ(parse_reply(reply({content_block::make_tool_call("a", "install", {{"manager", "pip"}})})).problem,
            "install needs the argument 'packages'");
  EXPECT_EQ(
      parse_reply(reply({content_block::make_tool_call("a", "install", {{"manager", "brew"}, {"packages", {"x"}}})}))
          .problem,
      "install.manager must be one of [\"pip\",\"apt\",\"conda\",\"uv\"], found \"brew\"");
  EXPECT_EQ(parse_reply(reply({content_block::make_tool_call("a", "give_up", {{"reason", ""}})})).problem,
            "give_up.reason must not be empty");
  EXPECT_EQ(
      parse_reply(reply({content_block::make_tool_call("a", "run", {{"command", "ls"}, {"sudo", true}})})).problem,
      "run has no argument 'sudo'");
  EXPECT_THAT(parse_reply(reply({content_block::make_tool_call("a", "shell", {{"command", "ls"}})})).problem,
              HasSubstr("unknown tool 'shell'; the tools are run, read_file"));
}

TEST(LlmPrompt, SystemPromptStatesTheRulesAndTheKnowledge) {
  const std::string s = system_prompt(request_with({}), knowledge_base::builtin());
  for (const char* rule : {"never fall back to the CPU", "No stubs", "Never install NVIDIA wheels", "SDPA",
                           "Never set HSA_OVERRIDE_GFX_VERSION", "Success is decided only by the verifier", "on gfx942",
                           "missing_code_object", "nvidia_wheel_installed"}) {
    EXPECT_THAT(s, HasSubstr(rule));
  }
}

TEST(LlmPrompt, HistoryIsRenderedAsToolCallsAndResultsWithHints) {
  auto r = request_with({turn(0, {{"type", "run"}, {"command", "pip install -r r.txt"}}, 0, ""),
                         turn(1, {{"type", "run_workload"}, {"command", "python train.py"}}, 1,
                              "ModuleNotFoundError: No module named 'timm'")});
  r.hints = {{"memory", "fixed it 2 of 2 times", json{{"type", "install"}, {"manager", "pip"}, {"packages", {"timm"}}},
              "run r1"}};
  const auto out = render(r, knowledge_base::builtin(), prompt_options{});
  ASSERT_EQ(out.messages.size(), 5u);
  EXPECT_THAT(out.messages[0].content[0].text, HasSubstr("\"command\": \"python train.py\""));
  EXPECT_EQ(out.messages[1].role, "assistant");
  EXPECT_EQ(out.messages[1].content[0].name, "run");
  EXPECT_EQ(out.messages[1].content[0].arguments, (json{{"command", "pip install -r r.txt"}}));
  EXPECT_EQ(out.messages[4].content[0].tool_call_id, "turn-1");
  EXPECT_TRUE(out.messages[4].content[0].is_error);
  EXPECT_THAT(out.messages[4].content[0].content, HasSubstr("signature: missing_python_module:timm"));
  const std::string& closing = out.messages[4].content[1].text;
  EXPECT_THAT(closing, HasSubstr("known fix: pip install timm"));
  EXPECT_THAT(closing, HasSubstr("Hints (advice only; guards judge every action):\n- [memory] fixed it 2 of 2 times"));
  EXPECT_THAT(closing, HasSubstr("Propose the next action with exactly one tool call."));
  EXPECT_EQ(out.dropped_turns, 0u);
}

TEST(LlmPrompt, LongHistoryIsTrimmedToTheBudgetKeepingPlanAndLastTurns) {
  std::vector<turn_record> h;
  for (int i = 0; i < 60; ++i) {
    h.push_back(turn(i, {{"type", "run"}, {"command", "step " + std::to_string(i)}}, i % 2, std::string(3000, 'x')));
  }
  const auto r = request_with(h);
  prompt_options opts;
  opts.context_budget_tokens = 12000;
  opts.keep_last_turns = 4;
  const auto out = render(r, knowledge_base::builtin(), opts);
  EXPECT_LE(out.estimated_tokens, opts.context_budget_tokens);
  EXPECT_GT(out.dropped_turns, 0u);
  EXPECT_LE(out.dropped_turns, 56u);
  EXPECT_THAT(out.messages[0].content[0].text, HasSubstr("The plan of this run"));
  EXPECT_THAT(out.messages[0].content[1].text, HasSubstr("Earlier turns (summarised"));
  // At most 40 summary lines, the newest ones: the older dropped turns are only counted. How many
  // turns are dropped depends on the system prompt's size (the knowledge base grows), not fixed here.
  const std::size_t d = out.dropped_turns;
  ASSERT_GT(d, 40u);
  const std::string first = std::to_string(d - 40);
  EXPECT_THAT(out.messages[0].content[1].text,
              HasSubstr("(" + first + " older turns omitted)\n- turn " + first + ": run step " + first + " -> exit " +
                        std::to_string((d - 40) % 2) + "\n"))
      << "at most 40 summary lines, the newest ones";
  EXPECT_THAT(out.messages[0].content[1].text,
              HasSubstr("- turn " + std::to_string(d - 1) + ": run step " + std::to_string(d - 1) + " -> exit"));
  EXPECT_EQ(out.messages[1].content[0].id, "turn-" + std::to_string(d)) << "the turns after the summary are whole";
  EXPECT_EQ(out.messages.back().content[0].tool_call_id, "turn-59");
  EXPECT_EQ(out.messages[out.messages.size() - 8].content[0].id, "turn-56") << "the last 4 turns are kept";
  const auto req = build_request(r, knowledge_base::builtin(), opts);
  EXPECT_EQ(estimate_tokens(req), out.estimated_tokens);
  EXPECT_LE(estimate_tokens(req), opts.context_budget_tokens);

  // When the kept turns alone are over budget, their observations are cut, tails kept.
  opts.keep_last_turns = 60;
  const auto cut = render(r, knowledge_base::builtin(), opts);
  EXPECT_EQ(cut.dropped_turns, 0u);
  EXPECT_LT(cut.observation_chars, 3000u);
  EXPECT_THAT(cut.messages[2].content[0].content, HasSubstr("earlier bytes cut]"));
}

TEST(LlmPrompt, FeedbackAnswersEveryToolCallAndSaysWhatToDo) {
  const auto bad = reply({content_block::make_tool_call("c7", "install", {{"manager", "pip"}})});
  const auto m = feedback_message(bad, "install needs the argument 'packages'");
  ASSERT_EQ(m.content.size(), 2u);
  EXPECT_EQ(m.content[0].tool_call_id, "c7");
  EXPECT_TRUE(m.content[0].is_error);
  EXPECT_THAT(m.content[1].text, HasSubstr("Reply with exactly one tool call"));
  EXPECT_EQ(assistant_message(reply({})).content[0].text, "(empty reply)");
}

}  // namespace
