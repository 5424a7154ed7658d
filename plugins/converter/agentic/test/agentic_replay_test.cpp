// SPDX-License-Identifier: MIT
// r2r.converter.agentic as a pipeline stage, with r2r.llm.replay as the pipeline's `llm` instance
// answering from inline cassettes, and the real hipcc compiling each rewrite for gfx90a. The
// cassettes' requests are built from the hand-reviewed golden files in test/golden (the system
// prompt, the feedback template and the whole first request for warp_reduce.hip), not from the
// converter's prompt functions: a changed prompt is a replay mismatch, and the PinnedPrompt tests
// compare the prompt functions with the golden files byte for byte.
#include "../../../../tests/unit/golden_file.hpp"
#include "../../../../tests/unit/test_support.hpp"
#include "hazard_scanner.hpp"
#include "prompt.hpp"
#include "region_edit.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
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

std::filesystem::path golden(const std::string& name) {
  return std::filesystem::path(R2R_AGENTIC_GOLDEN) / name;
}

/// The reviewed system prompt.
std::string golden_system() {
  return r2r::test::read_golden(golden("system_prompt.txt"));
}

/// The reviewed feedback after an attempt that was not accepted, for `kind` and `problem`.
std::string golden_feedback(const std::string& kind, const std::string& problem) {
  std::string text = r2r::test::read_golden(golden("feedback.txt"));
  text.replace(text.find("{kind}"), 6, kind);
  text.replace(text.find("{problem}"), 9, problem);
  return text;
}

/// The hazards at warning or above that the hazards scanner finds in `text`.
std::vector<r2r::sdk::converter::hazard> scanned(const std::string& name, const std::string& text) {
  std::vector<r2r::sdk::converter::hazard> hazards;
  for (const auto& h : scan_hazards(name, text).hazards)
    if (h.severity != "note") hazards.push_back(h);
  return hazards;
}

/// The first request the converter must send for `name` when its hazards are `hazards`: the
/// reviewed system prompt with the file's hazards and regions.
r2r::sdk::llm::complete_request first_request_with(const std::string& name, const std::string& text,
                                                   const std::vector<r2r::sdk::converter::hazard>& hazards) {
  const auto lines = static_cast<std::int64_t>(agentic::split_lines(text).size());
  auto request =
      agentic::first_request(name, text, hazards, agentic::hazard_regions(hazards, lines, context), archs, max_tokens);
  request.system = golden_system();
  return request;
}

/// The first request the converter must send for `name` (hazards at warning or above); for the
/// unchanged warp_reduce.hip fixture, the whole reviewed golden request.
r2r::sdk::llm::complete_request first_request_for(const std::string& name, const std::string& text) {
  if (name == "warp_reduce.hip" && text == fixture_text(name)) {
    return json::parse(r2r::test::read_golden(golden("first_request.warp_reduce.json")))
        .get<r2r::sdk::llm::complete_request>();
  }
  const auto hazards = scanned(name, text);
  EXPECT_FALSE(hazards.empty()) << name << " has no hazard to rewrite";
  return first_request_with(name, text, hazards);
}

json answer(const std::string& text, int tokens = 120, double cost = 0.001) {
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
      {"cost_usd", cost}};
}

/// The request after `previous` was answered with `said` and the converter replied `feedback`.
json follow_up(r2r::sdk::llm::complete_request previous, const std::string& said, const std::string& feedback) {
  previous.messages.push_back({"assistant", {r2r::sdk::llm::content_block::make_text(said)}});
  previous.messages.push_back({"user", {r2r::sdk::llm::content_block::make_text(feedback)}});
  return previous;
}

// The prompt functions against the reviewed golden files, byte for byte. The golden files say what
// the design requires (no stubs, no CPU fallback, no kernel swapped for a framework op such as SDPA,
// wave64 masks); see docs/conversion.md.
TEST(PinnedPrompt, SystemPromptIsTheReviewedGoldenText) {
  const std::string m = r2r::test::golden_mismatch(golden("system_prompt.txt"), agentic::system_prompt());
  EXPECT_TRUE(m.empty()) << m;
}

TEST(PinnedPrompt, FeedbackIsTheReviewedGoldenTemplate) {
  const std::string m =
      r2r::test::golden_mismatch(golden("feedback.txt"), agentic::feedback_message("{kind}", "{problem}"));
  EXPECT_TRUE(m.empty()) << m;
}

TEST(PinnedPrompt, FirstRequestForWarpReduceIsTheReviewedGoldenRequest) {
  const std::string name = "warp_reduce.hip";
  const std::string text = fixture_text(name);
  const auto hazards = scanned(name, text);
  const auto lines = static_cast<std::int64_t>(agentic::split_lines(text).size());
  const auto request =
      agentic::first_request(name, text, hazards, agentic::hazard_regions(hazards, lines, context), archs, max_tokens);
  const std::string m =
      r2r::test::golden_mismatch(golden("first_request.warp_reduce.json"), json(request).dump(2) + "\n");
  EXPECT_TRUE(m.empty()) << m;
}

TEST(PinnedPrompt, GoldenFilesSayWhatTheDesignRequires) {
  const std::string system = r2r::test::read_golden(golden("system_prompt.txt"));
  for (const char* rule : {"no CPU fallback", "no stubs", "never delete, empty or disable a kernel",
                           "never drop __global__", "never replace a kernel by a host loop or a framework op", "SDPA",
                           "64-lane wavefronts", "64-bit lane masks", "instead of inline PTX"}) {
    EXPECT_THAT(system, HasSubstr(rule));
  }
  const json first = json::parse(r2r::test::read_golden(golden("first_request.warp_reduce.json")));
  EXPECT_EQ(first.at("system"), system);
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
    return run_request(json{{"files", {{{"path", name}, {"text", fixture_text(name)}}}}, {"return_text", true}},
                       exchanges, std::move(config));
  }

  /// Runs one convert call of `request`; `llm_limits` are the replay instance's own caps.
  json run_request(const json& request, const json& exchanges, json config = json::object(),
                   const json& llm_limits = json()) {
    config["default_arch"] = archs;
    json llm_config{{"mode", "replay"}, {"exchanges", exchanges}};
    if (!llm_limits.is_null()) llm_config["limits"] = llm_limits;
    const json file{
        {"version", 1},
        {"instances", {{"llm", {{"use", "r2r.llm.replay"}, {"config", llm_config}}}}},
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
    auto response = (*session)->stages().front().instance->call("convert", request);
    if (!response) {
      ADD_FAILURE() << response.error().message;
      return json();
    }
    return *response;
  }

  /// Asserts one accepted rewrite of `name` that compiled for gfx90a and fixes `rule`; `with_spec`:
  /// a harness spec is beside the file (the numerical gate ran).
  void expect_accepted(const json& r, const std::string& rule, const std::string& new_line, bool with_spec = false) {
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
    if (with_spec) return;
    // Without a harness spec beside the file the gate never ran, and the build result says exactly that.
    const std::string path = f.at("path").get<std::string>();
    const std::string spec = path.substr(0, path.rfind('.')) + ".harness.json";
    EXPECT_EQ(r.at("builds")[0].at("message"),
              "compiled for gfx90a; numerics unchecked: no harness spec " + spec + " beside the file");
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
  const json second =
      follow_up(first, stub,
                golden_feedback("refused degradation", "kernel 'warp_sum' was stubbed: its body starts with return;"));
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

// Hazards through the request: an earlier scan's hazards (files[].hazards) are used as given.
TEST_F(AgenticReplay, HazardsPassedInTheRequestAreUsedInsteadOfAScan) {
  const std::string name = "warp_reduce.hip";
  const std::string text = fixture_text(name);
  auto hazards = scanned(name, text);
  ASSERT_FALSE(hazards.empty());
  // Only the reduction hazard, renamed: a converter that scanned again would send another prompt
  // and miss the cassette.
  std::erase_if(hazards, [](const auto& h) { return h.rule != "reduction-from-16"; });
  ASSERT_EQ(hazards.size(), 1u);
  hazards[0].rule = "reduction-from-16-as-passed";
  const std::string fix =
      "@@ replace 6-6\n  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);\n@@ "
      "end\n";
  const json request{{"files", {{{"path", name}, {"text", text}, {"hazards", hazards}}}}, {"return_text", true}};
  const json r = run_request(
      request, json::array({{{"request", first_request_with(name, text, hazards)}, {"response", answer(fix)}}}));
  expect_accepted(r, "reduction-from-16-as-passed", "  for (int offset = warpSize / 2;");
  const json& stats = r.at("files")[0].at("stats");
  EXPECT_EQ(stats.at("hazards_from_request"), 1);
  EXPECT_FALSE(stats.contains("hazards_scanned")) << stats.dump();
}

TEST_F(AgenticReplay, AnEmptyHazardListPassedInTheRequestMeansNoCallAndNoScan) {
  const std::string name = "warp_reduce.hip";
  const json request{{"files", {{{"path", name}, {"text", fixture_text(name)}, {"hazards", json::array()}}}},
                     {"return_text", true}};
  const json r = run_request(request, json::array());  // any llm call would miss the empty cassette
  const json& f = r.at("files")[0];
  EXPECT_EQ(f.at("status"), "unchanged") << r.dump(2);
  EXPECT_FALSE(f.value("stats", json::object()).contains("hazards_scanned"));
  EXPECT_TRUE(r.at("hazards").empty());
}

TEST_F(AgenticReplay, WithoutHazardsInTheRequestTheFileIsScannedHere) {
  const std::string name = "ballot.hip";
  const std::string fix =
      "@@ replace 6-7\n  unsigned long long mask = __ballot(in[i] > 0);\n"
      "  if (threadIdx.x % warpSize == 0) counts[i / warpSize] = __popcll(mask);\n@@ end\n";
  const json r =
      run(name, json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(fix)}}}));
  const json& stats = r.at("files")[0].at("stats");
  EXPECT_GE(stats.at("hazards_scanned").get<int>(), 1) << stats.dump();
  EXPECT_FALSE(stats.contains("hazards_from_request"));
}

TEST_F(AgenticReplay, PassedHazardsThatDoNotFitTheTextAreReplacedByAScan) {
  const std::string name = "ballot.hip";
  const std::string text = fixture_text(name);
  auto stale = scanned(name, text);
  stale[0].line = 400;  // from an older, longer text
  const std::string fix =
      "@@ replace 6-7\n  unsigned long long mask = __ballot(in[i] > 0);\n"
      "  if (threadIdx.x % warpSize == 0) counts[i / warpSize] = __popcll(mask);\n@@ end\n";
  const json request{{"files", {{{"path", name}, {"text", text}, {"hazards", stale}}}}, {"return_text", true}};
  const json r =
      run_request(request, json::array({{{"request", first_request_for(name, text)}, {"response", answer(fix)}}}));
  expect_accepted(r, "ballot-32bit", "  unsigned long long mask = __ballot(in[i] > 0);");
  EXPECT_THAT(r.at("files")[0].at("diagnostics").dump(), HasSubstr("hazard line 400 is past the end"));
}

// Budgets: the llm instance's own cap, and the converter's max_cost_usd.
TEST_F(AgenticReplay, TheLlmInstancesBudgetStopsTheRewriteAndEveryLaterFile) {
  const std::string first = "warp_reduce.hip";
  const std::string second = "ballot.hip";
  const std::string prose = "I would rather explain the fix in prose.";
  const auto request1 = first_request_for(first, fixture_text(first));
  const std::string text = fixture_text(first);
  const auto regions = agentic::hazard_regions(scanned(first, text),
                                               static_cast<std::int64_t>(agentic::split_lines(text).size()), context);
  const std::string problem = agentic::parse_answer(prose, regions).problem;
  ASSERT_FALSE(problem.empty());
  const json request2 = follow_up(request1, prose, golden_feedback("unusable answer", problem));
  const json exchanges = json::array({{{"request", request1}, {"response", answer(prose, 120, 0.5)}},
                                      {{"request", request2}, {"response", answer(prose, 120, 0.5)}}});
  const json request{
      {"files", {{{"path", first}, {"text", fixture_text(first)}}, {{"path", second}, {"text", fixture_text(second)}}}},
      {"return_text", true}};
  const json r = run_request(request, exchanges, json::object(), json{{"max_cost_usd", 0.6}});
  ASSERT_EQ(r.at("files").size(), 2u) << r.dump(2);
  for (const auto& f : r.at("files")) {
    EXPECT_EQ(f.at("status"), "unchanged") << f.dump(2);
    const std::string diags = f.at("diagnostics").dump();
    EXPECT_THAT(diags, HasSubstr("agentic-stopped"));
    EXPECT_THAT(diags, HasSubstr("the llm instance 'llm' refused the call, its budget is spent (budget_exceeded: "
                                 "refused before sending: max_cost_usd $0.6000"));
    EXPECT_THAT(diags, HasSubstr("raise its `limits` to continue"));
  }
  EXPECT_EQ(r.at("files")[0].at("stats").at("agentic_attempts"), 1);
  EXPECT_EQ(r.at("files")[1].at("stats").at("agentic_attempts"), 0);
}

TEST_F(AgenticReplay, TheConvertersCostCapStopsBeforeTheNextCallAndForLaterFiles) {
  const std::string first = "warp_reduce.hip";
  const std::string second = "ballot.hip";
  const std::string prose = "I would rather explain the fix in prose.";
  const json exchanges = json::array(
      {{{"request", first_request_for(first, fixture_text(first))}, {"response", answer(prose, 120, 0.02)}}});
  const json request{
      {"files", {{{"path", first}, {"text", fixture_text(first)}}, {{"path", second}, {"text", fixture_text(second)}}}},
      {"return_text", true}};
  const json r = run_request(request, exchanges, json{{"max_cost_usd", 0.01}});
  ASSERT_EQ(r.at("files").size(), 2u) << r.dump(2);
  for (const auto& f : r.at("files")) {
    EXPECT_EQ(f.at("status"), "unchanged") << f.dump(2);
    EXPECT_THAT(f.at("diagnostics").dump(), HasSubstr("cost budget spent: $0.020000 of max_cost_usd $0.010000"));
  }
}

// The numerical gate, as `repo2rocm port` lays files out: the hipified text under root, the CUDA
// original and its harness spec under base_root.
TEST_F(AgenticReplay, AnAcceptedRewriteWithAHarnessSpecGoesThroughTheNumericalGate) {
  namespace fs = std::filesystem;
  const fs::path root = tmp.path() / "tree";
  const fs::path base = tmp.path() / "source";
  fs::create_directories(root);
  fs::create_directories(base);
  const std::string name = "warp_reduce.cu";
  const std::string hip_text = fixture_text("warp_reduce.hip");
  std::ofstream(root / name) << hip_text;
  std::ofstream(base / name) << fixture_text("warp_reduce.cu");
  std::ofstream(base / "warp_reduce.harness.json") << fixture_text("warp_reduce.harness.json");
  const std::string fix =
      "@@ replace 6-6\n  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);\n@@ "
      "end\n";
  const json request{
      {"files", {{{"path", name}}}}, {"root", root.string()}, {"base_root", base.string()}, {"return_text", true}};
  const json r =
      run_request(request, json::array({{{"request", first_request_for(name, hip_text)}, {"response", answer(fix)}}}));
  expect_accepted(r, "reduction-from-16", "  for (int offset = warpSize / 2;", true);
  const json& f = r.at("files")[0];
  std::string gate;
  for (const auto& d : f.at("diagnostics"))
    if (d.at("name") == "numerics") gate = d.at("message");
  // No machine here has both devices: the verdict is never a pass.
  EXPECT_THAT(gate, HasSubstr("numerics: unchecked; reference: reference not run: "));
  EXPECT_THAT(gate, HasSubstr("rewrite: compiled for gfx90a, numerics unchecked: no ROCm device"));
  // The build result reports the gate that ran, not a fixed sentence.
  const std::string built = r.at("builds")[0].at("message");
  EXPECT_THAT(built, ::testing::StartsWith("compiled for gfx90a; numerics unchecked (reference: reference not run: "));
  EXPECT_THAT(built, ::testing::EndsWith("; rewrite: compiled for gfx90a, numerics unchecked: no ROCm device"));
  EXPECT_THAT(built, ::testing::Not(HasSubstr("no harness spec")));
  EXPECT_EQ(f.at("stats").at("numerics_unchecked"), 1);
  EXPECT_FALSE(f.at("stats").contains("numerics_pass"));
}

TEST_F(AgenticReplay, ABrokenHarnessSpecIsAnErrorNotAVerdict) {
  namespace fs = std::filesystem;
  const fs::path root = tmp.path() / "tree";
  fs::create_directories(root);
  const std::string name = "warp_reduce.hip";
  std::ofstream(root / name) << fixture_text(name);
  std::ofstream(root / "warp_reduce.harness.json") << R"({"kernel": "warp_sum", "grid": 4, "block": 128, "args": {}})";
  const std::string fix =
      "@@ replace 6-6\n  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);\n@@ "
      "end\n";
  const json request{{"files", {{{"path", name}}}}, {"root", root.string()}, {"return_text", true}};
  const json r = run_request(
      request, json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(fix)}}}));
  const std::string diags = r.at("files")[0].at("diagnostics").dump();
  EXPECT_THAT(diags, HasSubstr("numerics-spec"));
  EXPECT_THAT(diags, HasSubstr("no object for parameter 'in'"));
}

// `repo2rocm port` passes the hazard stage's findings to the agentic stage with each file.
TEST_F(AgenticReplay, PortChainPassesTheHazardStagesFindingsToTheAgenticStage) {
  namespace fs = std::filesystem;
  const fs::path source = tmp.path() / "src";
  fs::create_directories(source);
  const std::string name = "warp_reduce.hip";
  std::ofstream(source / name) << fixture_text(name);
  const std::string fix =
      "@@ replace 6-6\n  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);\n@@ "
      "end\n";
  const json exchanges =
      json::array({{{"request", first_request_for(name, fixture_text(name))}, {"response", answer(fix)}}});
  const json pipeline{
      {"version", 1},
      {"instances", {{"llm", {{"use", "r2r.llm.replay"}, {"config", {{"mode", "replay"}, {"exchanges", exchanges}}}}}}},
      {"pipeline",
       {{{"stage", "convert"}, {"name", "hazards"}, {"use", "r2r.converter.hazards"}, {"config", json::object()}},
        {{"stage", "convert"},
         {"name", "agentic"},
         {"use", "r2r.converter.agentic"},
         {"config", {{"default_arch", archs}}}}}}};
  std::ofstream(tmp.path() / "pipeline.json") << pipeline.dump();
  const fs::path out = tmp.path() / "out";
  const auto r = r2r::test::run_process((r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string() + " port " +
                                        source.string() + " --pipeline " + (tmp.path() / "pipeline.json").string() +
                                        " --out " + out.string() + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(out / "convert.json");
  const json report = json::parse(in);
  ASSERT_EQ(report.at("files").size(), 1u) << report.dump(2);
  const json& stats = report.at("files")[0].at("stages").at("agentic").at("stats");
  EXPECT_GE(stats.at("hazards_from_request").get<int>(), 1) << stats.dump();
  EXPECT_FALSE(stats.contains("hazards_scanned")) << stats.dump();
  EXPECT_THAT(report.at("files")[0].at("diagnostics").dump(), HasSubstr("agentic-edit"));
}

}  // namespace
