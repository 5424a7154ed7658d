// SPDX-License-Identifier: MIT
// r2r.converter.agentic as a pipeline stage, with r2r.llm.replay as the pipeline's `llm` instance
// answering from inline cassettes, and the real hipcc compiling each rewrite for gfx90a. The
// cassettes' requests are built with the converter's own prompt functions from the fixtures' hazard
// scan, so a changed prompt fails replay with its first difference.
#include "../../../../tests/unit/test_support.hpp"
#include "hazard_scanner.hpp"
#include "prompt.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

using nlohmann::json;
using namespace r2r::plugins::converter;
using ::testing::HasSubstr;

const std::vector<std::string> archs{"gfx90a"};
constexpr std::int64_t max_tokens = 4096;
constexpr std::int64_t context = 6;

std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(R2R_AGENTIC_FIXTURES) + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The first request the converter sends for `name` (hazards at warning or above).
r2r::sdk::llm::complete_request first_request_for(const std::string& name, const std::string& text) {
  std::vector<r2r::sdk::converter::hazard> hazards;
  for (const auto& h : scan_hazards(name, text).hazards)
    if (h.severity != "note") hazards.push_back(h);
  EXPECT_FALSE(hazards.empty()) << name << " has no hazard to rewrite";
  const auto lines = static_cast<std::int64_t>(agentic::split_lines(text).size());
  return agentic::first_request(name, text, hazards, agentic::hazard_regions(hazards, lines, context), archs,
                                max_tokens);
}

json answer(const std::string& text, int tokens = 120) {
  return json{
      {"id", "msg_agentic"},
      {"model", "claude-sonnet-4-5"},
      {"provider", "anthropic"},
      {"content", {{{"type", "text"}, {"text", text}}}},
      {"stop_reason", "end_turn"},
      {"provider_stop_reason", "end_turn"},
      {"usage", {{"input_tokens", tokens}, {"output_tokens", 40}, {"cache_read_tokens", 0}, {"cache_write_tokens", 0}}},
      {"latency_ms", 900},
      {"attempts", 1},
      {"cost_usd", 0.001}};
}

/// The request after `previous` was answered with `said` and the converter replied `feedback`.
json follow_up(r2r::sdk::llm::complete_request previous, const std::string& said, const std::string& feedback) {
  previous.messages.push_back({"assistant", {r2r::sdk::llm::content_block::make_text(said)}});
  previous.messages.push_back({"user", {r2r::sdk::llm::content_block::make_text(feedback)}});
  return previous;
}

class AgenticReplay : public ::testing::Test {
 protected:
  AgenticReplay() {
    auto loaded = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
    if (!loaded) throw std::runtime_error(loaded.error().to_string());
    registry = std::make_unique<r2r::core::plugin_registry>(std::move(*loaded));
  }

  /// Runs one convert call for the fixture `name` through a pipeline whose llm replays `exchanges`.
  json run(const std::string& name, const json& exchanges, json config = json::object()) {
    config["default_arch"] = archs;
    const json file{
        {"version", 1},
        {"instances",
         {{"llm", {{"use", "r2r.llm.replay"}, {"config", {{"mode", "replay"}, {"exchanges", exchanges}}}}}}},
        {"pipeline",
         {{{"stage", "convert"}, {"name", "agentic"}, {"use", "r2r.converter.agentic"}, {"config", config}}}}};
    auto parsed = r2r::core::parse_pipeline_text(file.dump(), tmp.path() / "pipeline.json");
    if (!parsed.problems.empty()) ADD_FAILURE() << parsed.problems.front().to_string();
    if (!parsed.config) return json();
    auto session = r2r::core::pipeline_session::create(*parsed.config, *registry);
    if (!session) {
      ADD_FAILURE() << session.error().to_string();
      return json();
    }
    const json request{{"files", {{{"path", name}, {"text", fixture_text(name)}}}}, {"return_text", true}};
    auto response = (*session)->stages().front().instance->call("convert", request);
    if (!response) {
      ADD_FAILURE() << response.error().message;
      return json();
    }
    return *response;
  }

  /// Asserts one accepted rewrite of `name` that compiled for gfx90a and fixes `rule`.
  void expect_accepted(const json& r, const std::string& rule, const std::string& new_line) {
    ASSERT_EQ(r.at("files").size(), 1u) << r.dump(2);
    const json& f = r.at("files")[0];
    EXPECT_EQ(f.at("status"), "converted") << r.dump(2);
    EXPECT_THAT(f.value("text", ""), HasSubstr(new_line));
    EXPECT_THAT(f.at("diff").get<std::string>(), HasSubstr("+" + new_line));
    bool noted = false;
    for (const auto& d : f.at("diagnostics")) {
      noted = noted ||
              (d.at("name") == "agentic-edit" && d.at("message").get<std::string>().find(rule) != std::string::npos);
    }
    EXPECT_TRUE(noted) << "no edit note names " << rule << ": " << f.at("diagnostics").dump(2);
    ASSERT_EQ(r.at("builds").size(), 1u) << r.dump(2);
    EXPECT_EQ(r.at("builds")[0].at("status"), "passed") << r.at("builds")[0].dump(2);
    EXPECT_EQ(r.at("builds")[0].at("message"), "compiled for gfx90a, numerics unchecked: no ROCm device");
  }

  r2r::test::temp_dir tmp;
  std::unique_ptr<r2r::core::plugin_registry> registry;
};

TEST_F(AgenticReplay, WarpReductionFrom16IsRewrittenForWave64AndCompiles) {
  const std::string name = "warp_reduce.hip";
  const std::string fix =
      "@@ replace 6-6\n  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);\n@@ "
      "end\n";
  const json r =
      run(name, json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(fix)}}}));
  expect_accepted(r, "reduction-from-16", "  for (int offset = warpSize / 2; offset > 0; offset /= 2)");
}

TEST_F(AgenticReplay, Ballot32BitMaskIsWidenedAndCompiles) {
  const std::string name = "ballot.hip";
  const std::string fix =
      "@@ replace 6-7\n  unsigned long long mask = __ballot(in[i] > 0);\n"
      "  if (threadIdx.x % warpSize == 0) counts[i / warpSize] = __popcll(mask);\n@@ end\n";
  const json r =
      run(name, json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(fix)}}}));
  expect_accepted(r, "ballot-32bit", "  unsigned long long mask = __ballot(in[i] > 0);");
}

TEST_F(AgenticReplay, InlinePtxHelperBecomesAHipBuiltinAndCompiles) {
  const std::string name = "inline_ptx.hip";
  const std::string fix = "@@ replace 5-7\n  return __lane_id();\n@@ end\n";
  const json r =
      run(name, json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(fix)}}}));
  expect_accepted(r, "inline-ptx", "  return __lane_id();");
  EXPECT_THAT(r.at("files")[0].at("text").get<std::string>(), ::testing::Not(HasSubstr("asm")));
}

TEST_F(AgenticReplay, StubbedKernelIsRefusedAndTheModelIsToldWhy) {
  const std::string name = "warp_reduce.hip";
  const std::string stub = "@@ replace 5-7\n  return;\n@@ end\n";
  const std::string fix =
      "@@ replace 6-6\n  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);\n@@ "
      "end\n";
  const auto first = first_request_for(name, fixture_text(name));
  const json second = follow_up(
      first, stub,
      agentic::feedback_message("refused degradation", "kernel 'warp_sum' was stubbed: its body starts with return;"));
  const json r = run(name, json::array({{{"request", first}, {"response", answer(stub)}},
                                        {{"request", second}, {"response", answer(fix)}}}));
  expect_accepted(r, "reduction-from-16", "  for (int offset = warpSize / 2;");
  EXPECT_THAT(r.at("files")[0].at("text").get<std::string>(), ::testing::Not(HasSubstr("return;")));
  EXPECT_EQ(r.at("files")[0].at("stats").at("agentic_refused"), 1);
}

TEST_F(AgenticReplay, StubbedKernelWithNoAttemptLeftLeavesTheFileUnchanged) {
  const std::string name = "warp_reduce.hip";
  const std::string stub = "@@ replace 5-7\n  return;\n@@ end\n";
  const json r =
      run(name, json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(stub)}}}),
          json{{"max_attempts", 1}});
  const json& f = r.at("files")[0];
  EXPECT_EQ(f.at("status"), "unchanged") << r.dump(2);
  EXPECT_THAT(f.at("diagnostics").dump(), HasSubstr("refused a rewrite: kernel 'warp_sum' was stubbed"));
  EXPECT_THAT(f.at("diagnostics").dump(), HasSubstr("attempt budget spent: max_attempts 1"));
  EXPECT_TRUE(r.at("builds").empty());
}

TEST_F(AgenticReplay, AllowedDegradationIsAcceptedAndRecorded) {
  const std::string name = "warp_reduce.hip";
  const std::string stub = "@@ replace 5-7\n  return;\n@@ end\n";
  const json r =
      run(name, json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(stub)}}}),
          json{{"allow_degradations", true}});
  const json& f = r.at("files")[0];
  EXPECT_EQ(f.at("status"), "converted") << r.dump(2);
  EXPECT_EQ(f.at("stats").at("degradations"), 1);
  EXPECT_THAT(f.at("diagnostics").dump(), HasSubstr("accepted as a degradation"));
}

TEST_F(AgenticReplay, CompileErrorWithNoAttemptLeftStopsWithTheCompilerMessage) {
  const std::string name = "warp_reduce.hip";
  const std::string broken = "@@ replace 6-6\n  v += __no_such_shuffle(v, 1);\n@@ end\n";
  const json r =
      run(name, json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(broken)}}}),
          json{{"max_attempts", 1}});
  const json& f = r.at("files")[0];
  EXPECT_EQ(f.at("status"), "unchanged") << r.dump(2);
  const std::string diags = f.at("diagnostics").dump();
  EXPECT_THAT(diags, HasSubstr("attempt budget spent: max_attempts 1; last problem: compile error"));
  EXPECT_THAT(diags, HasSubstr("__no_such_shuffle"));
}

TEST_F(AgenticReplay, TokenBudgetStopsTheLoopBeforeTheNextCall) {
  const std::string name = "warp_reduce.hip";
  const std::string bad = "I would rather explain the fix in prose.";
  const json r = run(
      name, json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(bad, 500)}}}),
      json{{"max_total_tokens", 100}});
  const json& f = r.at("files")[0];
  EXPECT_EQ(f.at("status"), "unchanged") << r.dump(2);
  EXPECT_THAT(f.at("diagnostics").dump(), HasSubstr("token budget spent: 540 of max_total_tokens 100"));
}

}  // namespace
