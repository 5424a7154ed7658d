// SPDX-License-Identifier: MIT
// The optional model ranking of a paper's candidates (issue 21), through `repo2rocm plan` with a
// pipeline whose `paper-rank` instance is r2r.llm.anthropic talking to a loopback server. The
// server checks that the prompt is the hand-reviewed golden one and replays the recorded replies
// of golden/rank_cassette.json. The fixture: the two-model NMT paper (4 candidates) and a workload
// that runs Transformer-Big on WMT14, so two results (its BLEU and its speedup) are tied and the
// deterministic choice takes neither.
#include "../plan/fixture_repos.hpp"
#include "../run/run_fixture.hpp"
#include "../unit/golden_file.hpp"
#include "test_pdfs.hpp"

#include <loopback_server.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using r2r::plugins::llm::testkit::loopback_server;
using r2r::plugins::llm::testkit::recorded_request;
using r2r::plugins::llm::testkit::scripted_response;
using r2r::test::read_text;
using r2r::test::run_process;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

fs::path golden(const std::string& name) {
  return r2r::test::env_path("R2R_SOURCE_DIR") / "tests/paper/golden" / name;
}

/// The prompt as the server received it: "system:\n...\n\nuser:\n..." (the golden file's form).
std::string prompt_of(const recorded_request& req) {
  const json body = req.json();
  std::string system;
  if (body["system"].is_string()) {
    system = body["system"];
  } else {
    for (const auto& b : body["system"]) system += b.value("text", "");
  }
  std::string user;
  for (const auto& b : body["messages"].at(0)["content"]) user += b.value("text", "");
  return "system:\n" + system + "\n\nuser:\n" + user;
}

class PaperRank : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = tmp.path() / "nmt";
    r2r::test::write_file(repo, "README.md",
                          "# Transformers for WMT14 English-German\n\nTranslate with the big model:\n\n"
                          "```bash\npython translate.py --model transformer_big\n```\n");
    r2r::test::write_file(repo, "translate.py", "print('BLEU 28.1')\n");
    r2r::test::git_commit_all(repo, "fixture");
    paper = tmp.path() / "nmt.pdf";
    r2r::test::write_two_model_pdf(paper);
    cassette = json::parse(read_text(golden("rank_cassette.json")));
    expected_prompt = r2r::test::read_golden(golden(cassette.at("prompt").get<std::string>()));
    // Replays the named recorded response, only for the golden prompt.
    server.set_handler([this](const recorded_request& req) {
      received.push_back(prompt_of(req));
      if (received.back() != expected_prompt)
        return scripted_response::json(
            418, {{"type", "error"}, {"error", {{"type", "test_error"}, {"message", "not the golden prompt"}}}});
      const json& recorded = cassette.at("responses").at(reply);
      return scripted_response::json(recorded.at("status"), recorded.at("body"));
    });
  }

  /// `plan --paper nmt.pdf` with a pipeline that has a paper-rank instance (or none).
  json plan(bool with_model, int expect_exit = 0) {
    json pipeline = {{"version", 1},
                     {"pipeline", {{{"stage", "rank"}, {"name", "images"}, {"use", "r2r.ranker.jaccard"}}}}};
    if (with_model) {
      pipeline["instances"]["paper-rank"] = {{"use", "r2r.llm.anthropic"},
                                             {"config",
                                              {{"base_url", server.base_url()},
                                               {"model", "claude-sonnet-4-5"},
                                               {"api_key_env", "R2R_TEST_PAPER_RANK_KEY"},
                                               {"timeout_ms", 5000},
                                               {"retry", {{"max_retries", 0}}}}}};
    }
    std::ofstream(tmp.path() / "pipeline.json") << pipeline.dump(2);
    const auto exe = r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm";
    fs::remove_all(tmp.path() / "out");
    const auto r = run_process("R2R_TEST_PAPER_RANK_KEY=sk-ant-test-0000 " + exe.string() + " --plugin-path " +
                               r2r::test::plugin_dir().string() + " plan '" + repo.string() + "' --pipeline '" +
                               (tmp.path() / "pipeline.json").string() + "' --out '" + (tmp.path() / "out").string() +
                               "' --cache-dir '" + (tmp.path() / "cache").string() + "' --state-dir '" +
                               (tmp.path() / "state").string() + "' --paper '" + paper.string() + "'");
    EXPECT_EQ(r.exit_code, expect_exit) << r.out << r.err;
    out_text = r.out + r.err;
    return json::parse(read_text(tmp.path() / "out/plan.json"));
  }

  void expect_golden_prompt() {
    ASSERT_EQ(received.size(), 1u);
    const std::string mismatch = r2r::test::golden_mismatch(golden(cassette.at("prompt")), received.front());
    EXPECT_TRUE(mismatch.empty()) << mismatch;
  }

  r2r::test::temp_dir tmp;
  fs::path repo, paper;
  json cassette;
  std::string expected_prompt, reply, out_text;
  std::vector<std::string> received;
  loopback_server server;
};

TEST_F(PaperRank, WithoutAModelTheTieStaysUndecided) {
  const json p = plan(false);
  EXPECT_TRUE(p["metric"].is_null());
  EXPECT_THAT(p["metric_note"].get<std::string>(), HasSubstr("2 candidates are tied to the workload"));
  EXPECT_FALSE(p["paper"].contains("ranking"));
  EXPECT_EQ(server.request_count(), 0u);
}

TEST_F(PaperRank, APickTheTieSupportsIsTaken) {
  reply = "tied";
  const json p = plan(true);
  expect_golden_prompt();
  ASSERT_TRUE(p["metric"].is_object()) << p["metric_note"];
  EXPECT_EQ(p["metric"]["model"], "Transformer-Big");
  EXPECT_EQ(p["metric"]["name"], "bleu");
  EXPECT_DOUBLE_EQ(p["metric"]["value"].get<double>(), 28.4);
  EXPECT_THAT(p["metric_note"].get<std::string>(), StartsWith("ranked by the model (paper-rank: "));
  const json& r = p["paper"]["ranking"];
  EXPECT_EQ(r["pick"], 2);
  EXPECT_EQ(r["accepted"], true);
  EXPECT_EQ(r["instance"], "paper-rank");
  EXPECT_EQ(p["paper"]["target"], 2);
}

TEST_F(PaperRank, APickTheTieDoesNotSupportIsRefused) {
  reply = "untied";  // Transformer-Base's BLEU: the command runs the big model
  const json p = plan(true);
  expect_golden_prompt();
  EXPECT_TRUE(p["metric"].is_null());
  const std::string note = p["metric_note"];
  EXPECT_THAT(note, StartsWith("no Mode 2 target:"));
  EXPECT_THAT(note, HasSubstr("was refused"));
  EXPECT_THAT(note, HasSubstr("Transformer-Base"));
  EXPECT_EQ(p["paper"]["ranking"]["accepted"], false);
  EXPECT_THAT(p["paper"]["ranking"].value("refused", ""), HasSubstr("not named in the command"));
  EXPECT_EQ(p["paper"]["candidates"].size(), 4u);
}

TEST_F(PaperRank, AMalformedReplyOrAServerErrorLeavesTheDeterministicResult) {
  const std::map<std::string, std::string> why = {{"malformed", "the reply has no non-negative integer \"index\""},
                                                  {"prose_around_json", "the reply is not strict JSON"},
                                                  {"server_error", "the model call failed"}};
  for (const auto& [name, says] : why) {
    reply = name;
    received.clear();
    const json p = plan(true);
    EXPECT_EQ(received.size(), 1u) << name;
    EXPECT_TRUE(p["metric"].is_null()) << name;
    const std::string note = p["metric_note"];
    EXPECT_THAT(note, StartsWith("no Mode 2 target: 2 candidates are tied")) << name;
    EXPECT_THAT(note, HasSubstr("(the model's ranking was not used: " + says)) << name;
    EXPECT_TRUE(p["paper"]["ranking"].contains("error")) << name << p["paper"]["ranking"].dump();
    EXPECT_FALSE(p["paper"]["ranking"].contains("pick")) << name;
  }
}

TEST_F(PaperRank, TheReplyNeverPutsAValueIntoThePlan) {
  // The reply names candidate 3 and also offers a metric and value of its own; only the index is read.
  reply = "invented_value";
  const json p = plan(true);
  ASSERT_TRUE(p["metric"].is_object()) << p["metric_note"];
  EXPECT_EQ(p["metric"]["name"], "speedup");
  EXPECT_DOUBLE_EQ(p["metric"]["value"].get<double>(), 0.6);
  EXPECT_THAT(p.dump(), Not(HasSubstr("99.9")));
  EXPECT_THAT(p.dump(), Not(HasSubstr("top-1")));
  // An index past the candidates is no candidate.
  reply = "out_of_range";
  received.clear();
  const json q = plan(true);
  EXPECT_TRUE(q["metric"].is_null());
  EXPECT_THAT(q["paper"]["ranking"].value("refused", ""), HasSubstr("not a candidate"));
}

TEST_F(PaperRank, AUniqueTieNeedsNoModel) {
  // The README names the metric: the deterministic narrowing takes Transformer-Big's BLEU alone.
  r2r::test::write_file(repo, "README.md",
                        "# Transformers for WMT14 English-German\n\nTranslate with the big model and print BLEU:\n\n"
                        "```bash\npython translate.py --model transformer_big\n```\n");
  r2r::test::git_commit_all(repo, "names the metric");
  const json p = plan(true);
  ASSERT_TRUE(p["metric"].is_object()) << p["metric_note"];
  EXPECT_DOUBLE_EQ(p["metric"]["value"].get<double>(), 28.4);
  EXPECT_FALSE(p["paper"].contains("ranking"));
  EXPECT_EQ(server.request_count(), 0u);
}

}  // namespace
