// SPDX-License-Identifier: MIT
// The replay backend on a fake host: replaying a recorded conversation, failing loudly with the
// first difference, recording another instance with secrets redacted, and record-then-replay
// giving byte-identical responses.
#include "replay_backend.hpp"
#include "test_helpers.hpp"

#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using namespace r2r::plugins::llm;
using namespace r2r::plugins::llm::testkit;
using nlohmann::json;
using r2r::sdk::llm::complete_request;
using r2r::sdk::llm::complete_response;
using r2r::sdk::llm::content_block;
using ::testing::HasSubstr;
using ::testing::Not;

json read_json_file(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

complete_request ask(const std::string& text) {
  complete_request r;
  r.messages.push_back({"user", {content_block::make_text(text)}});
  return r;
}

json answer(const std::string& text, int in, int out, double cost) {
  return json{
      {"id", "msg_" + std::to_string(in)},
      {"model", "claude-sonnet-4-5"},
      {"provider", "anthropic"},
      {"content", {{{"type", "text"}, {"text", text}}}},
      {"stop_reason", "end_turn"},
      {"usage", {{"input_tokens", in}, {"output_tokens", out}, {"cache_read_tokens", 0}, {"cache_write_tokens", 0}}},
      {"latency_ms", 321},
      {"attempts", 1},
      {"cost_usd", cost}};
}

class Replay : public ::testing::Test {
 protected:
  Replay() {
    dir = std::filesystem::temp_directory_path() / ("r2r-replay-test-" + std::to_string(::getpid()) + "-" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Replay() override { std::filesystem::remove_all(dir); }

  std::unique_ptr<replay_backend> make(const json& config) {
    return std::make_unique<replay_backend>(config.get<replay_backend::config>(), host.sdk_host());
  }
  std::string cassette_with(const std::vector<std::pair<complete_request, json>>& exchanges) const {
    const auto path = dir / "recorded.jsonl";
    std::ofstream out(path);
    for (const auto& [request, response] : exchanges)
      out << json{{"request", request}, {"response", response}}.dump() << "\n";
    return path.string();
  }
  std::string file_text(const std::string& path) const {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::filesystem::path dir;
  r2r::sdk::testing::fake_host host;
};

TEST_F(Replay, ServesARecordedConversationInOrder) {
  const auto file =
      cassette_with({{ask("one"), answer("first", 10, 2, 0.5)}, {ask("two"), answer("second", 20, 4, 0.25)}});
  auto replay = make({{"mode", "replay"}, {"cassette", file}});
  auto ctx = host.context();
  const auto a = replay->complete(ask("one"), ctx);
  const auto b = replay->complete(ask("two"), ctx);
  EXPECT_EQ(json(a), answer("first", 10, 2, 0.5));
  EXPECT_EQ(json(b), answer("second", 20, 4, 0.25));
  const auto t = replay->totals({}, ctx);
  EXPECT_EQ(t.calls, 2);
  EXPECT_EQ(t.usage.input_tokens, 30);
  EXPECT_DOUBLE_EQ(t.cost_usd, 0.75);
}

TEST_F(Replay, MismatchFailsWithTheFirstDifference) {
  const auto file = cassette_with({{ask("Build with make -j8 and report errors"), answer("ok", 1, 1, 0)}});
  auto replay = make({{"mode", "replay"}, {"cassette", file}});
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { replay->complete(ask("Build with make -j4 and report errors"), ctx); });
  EXPECT_EQ(status, R2R_ERR_FAILED);
  EXPECT_THAT(message, HasSubstr("replay_mismatch: request #1 does not match exchange 1 (" + file + ":1)"));
  EXPECT_THAT(message, HasSubstr("first difference at /messages/0/content/0/text: character 18"));
  EXPECT_THAT(message, HasSubstr("recorded \"Build with make -j8 and report errors\""));
  EXPECT_THAT(message, HasSubstr("this run \"Build with make -j4 and report errors\""));
  EXPECT_THAT(message, HasSubstr("record the cassette again"));
}

TEST_F(Replay, AnExtraRequestBeyondTheCassetteFails) {
  auto replay =
      make({{"mode", "replay"}, {"exchanges", {{{"request", ask("one")}, {"response", answer("x", 1, 1, 0)}}}}});
  auto ctx = host.context();
  replay->complete(ask("one"), ctx);
  const auto [status, message] = error_of([&] { replay->complete(ask("one"), ctx); });
  EXPECT_THAT(message, HasSubstr("replay_mismatch: request #2 has no exchange left: the config's exchanges holds 1"));
}

TEST_F(Replay, UnorderedMatchingTakesAnyUnusedExchangeAndNamesTheNearest) {
  auto replay = make({{"mode", "replay"},
                      {"match", "unordered"},
                      {"exchanges",
                       {{{"request", ask("alpha")}, {"response", answer("A", 1, 1, 0)}},
                        {{"request", ask("beta")}, {"response", answer("B", 2, 1, 0)}}}}});
  auto ctx = host.context();
  EXPECT_EQ(replay->complete(ask("beta"), ctx).text(), "B");
  const auto [status, message] = error_of([&] { replay->complete(ask("beta"), ctx); });
  EXPECT_THAT(message,
              HasSubstr("matches no unused exchange of the config's exchanges; the nearest is config /exchanges/0"));
  EXPECT_THAT(message, HasSubstr("recorded \"alpha\", this run \"beta\""));
  EXPECT_EQ(replay->complete(ask("alpha"), ctx).text(), "A");
}

TEST_F(Replay, RecordedErrorsComeBackWithTheirStatus) {
  auto replay =
      make({{"mode", "replay"},
            {"exchanges",
             {{{"request", ask("x")}, {"error", {{"status", "unavailable"}, {"message", "connect: refused"}}}}}}});
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { replay->complete(ask("x"), ctx); });
  EXPECT_EQ(status, R2R_ERR_UNAVAILABLE);
  EXPECT_EQ(message, "connect: refused");
}

TEST_F(Replay, CapsAreCheckedAgainstRecordedUsage) {
  auto replay = make({{"mode", "replay"},
                      {"limits", {{"max_cost_usd", 0.6}}},
                      {"exchanges",
                       {{{"request", ask("a")}, {"response", answer("A", 1, 1, 0.5)}},
                        {{"request", ask("b")}, {"response", answer("B", 1, 1, 0.5)}}}}});
  auto ctx = host.context();
  replay->complete(ask("a"), ctx);
  const auto [status, message] = error_of([&] { replay->complete(ask("b"), ctx); });
  EXPECT_THAT(message, HasSubstr("budget_exceeded: refused before sending: max_cost_usd $0.6000: spent $0.5000"));
  EXPECT_EQ(replay->totals({}, ctx).refused_calls, 1);
}

TEST_F(Replay, RecordsAnotherInstanceWithSecretsRedacted) {
  const std::string secret = random_secret("sk-ant-rec-");
  scoped_env env("R2R_TEST_RECORD_SECRET", secret);
  int calls = 0;
  host.serve("live", [&](const std::string& method, const json& request) -> json {
    EXPECT_EQ(method, "complete");
    // The live backend gets the real request, secret included.
    EXPECT_THAT(request.dump(), HasSubstr(secret));
    ++calls;
    return answer("the key you gave me is " + secret, 5, 6, 0.01);
  });
  const std::string cassette = (dir / "out" / "run.jsonl").string();
  complete_response live;
  {
    auto recorder = make(
        {{"mode", "record"}, {"target", "live"}, {"cassette", cassette}, {"redact_env", {"R2R_TEST_RECORD_SECRET"}}});
    auto ctx = host.context();
    live = recorder->complete(ask("use the key " + secret + " please"), ctx);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(live.text(), "the key you gave me is [REDACTED]") << "the run sees what the cassette holds";
  const std::string text = file_text(cassette);
  EXPECT_THAT(text, Not(HasSubstr(secret)));
  EXPECT_THAT(text, HasSubstr("use the key [REDACTED] please"));

  // Replaying needs no live instance, and the same request (secret and all) matches.
  auto replay = make({{"mode", "replay"}, {"cassette", cassette}, {"redact_env", {"R2R_TEST_RECORD_SECRET"}}});
  auto ctx = host.context();
  const auto again = replay->complete(ask("use the key " + secret + " please"), ctx);
  EXPECT_EQ(json(again).dump(), json(live).dump());
}

TEST_F(Replay, RecordedFailuresAreWrittenAndRethrown) {
  host.serve("live", [](const std::string&, const json&) -> json { throw std::runtime_error("timeout: no answer"); });
  const std::string cassette = (dir / "fail.jsonl").string();
  auto recorder = make({{"mode", "record"}, {"target", "live"}, {"cassette", cassette}});
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { recorder->complete(ask("x"), ctx); });
  EXPECT_EQ(status, R2R_ERR_FAILED);
  EXPECT_THAT(message, HasSubstr("timeout: no answer"));
  const auto lines = read_cassette(cassette);
  ASSERT_EQ(lines.size(), 1u);
  ASSERT_TRUE(lines[0].error);
  EXPECT_EQ(lines[0].error->message, message);
}

TEST_F(Replay, RecordThenReplayIsByteIdentical) {
  int turn = 0;
  host.serve("live", [&](const std::string&, const json&) -> json {
    ++turn;
    return answer("answer " + std::to_string(turn) + " \xC3\xA9\n\"quoted\"", 100 * turn, 7 * turn, 0.1 / 3 * turn);
  });
  const std::string cassette = (dir / "conv.jsonl").string();
  std::vector<std::string> recorded;
  {
    auto recorder = make({{"mode", "record"}, {"target", "live"}, {"cassette", cassette}});
    auto ctx = host.context();
    complete_request conversation = ask("start");
    for (int i = 0; i < 3; ++i) {
      const auto r = recorder->complete(conversation, ctx);
      recorded.push_back(json(r).dump());
      conversation.messages.push_back({"assistant", r.content});
      conversation.messages.push_back({"user", {content_block::make_text("next " + std::to_string(i))}});
    }
  }
  auto replay = make({{"mode", "replay"}, {"cassette", cassette}});
  auto ctx = host.context();
  complete_request conversation = ask("start");
  for (int i = 0; i < 3; ++i) {
    const auto r = replay->complete(conversation, ctx);
    EXPECT_EQ(json(r).dump(), recorded[static_cast<std::size_t>(i)]) << "turn " << i;
    conversation.messages.push_back({"assistant", r.content});
    conversation.messages.push_back({"user", {content_block::make_text("next " + std::to_string(i))}});
  }
}

TEST_F(Replay, TheExampleConfigAnswersEverySchemaExample) {
  const json config = read_json_file(R2R_REPLAY_EXAMPLE);
  const json examples = read_json_file(R2R_REQUEST_SCHEMA)["examples"];
  ASSERT_FALSE(examples.empty());
  auto replay = make(config);
  auto ctx = host.context();
  for (const auto& example : examples) {
    EXPECT_NO_THROW(replay->complete(example.get<complete_request>(), ctx)) << example.dump();
  }
}

TEST_F(Replay, ConfigMistakesAreExplained) {
  EXPECT_THROW(make({{"mode", "replay"}}), r2r::sdk::invalid_argument);
  EXPECT_THROW(make({{"mode", "record"}, {"cassette", (dir / "x.jsonl").string()}}), r2r::sdk::invalid_argument);
  EXPECT_THROW(make({{"mode", "replay"}, {"cassette", (dir / "missing.jsonl").string()}}), r2r::sdk::invalid_argument);
  std::ofstream(dir / "exists.jsonl") << "";
  EXPECT_THROW(make({{"mode", "record"}, {"target", "live"}, {"cassette", (dir / "exists.jsonl").string()}}),
               r2r::sdk::invalid_argument);
}

}  // namespace
