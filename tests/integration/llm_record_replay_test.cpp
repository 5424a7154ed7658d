// SPDX-License-Identifier: MIT
// The llm plugins as a run uses them: real .so files, a pipeline session, the host routing a
// recording instance to the live backend it wraps, and a loopback server speaking the Messages API.
// A recorded conversation (tool call, tool result, an error) replays offline with byte-identical
// responses and the same errors; a changed request fails with its first difference.
#include "../unit/test_support.hpp"
#include "loopback_server.hpp"
#include "test_helpers.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

using namespace r2r::plugins::llm::testkit;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

const char* const key_env = "R2R_IT_ANTHROPIC_KEY";

json message_body(const json& content, const std::string& stop, int in, int out) {
  return json{{"id", "msg_01" + std::to_string(in)},
              {"type", "message"},
              {"role", "assistant"},
              {"model", "claude-sonnet-4-5-20250929"},
              {"content", content},
              {"stop_reason", stop},
              {"usage", {{"input_tokens", in}, {"output_tokens", out}, {"cache_read_input_tokens", 7}}}};
}

json user_text(const std::string& text) {
  return json{{"role", "user"}, {"content", {{{"type", "text"}, {"text", text}}}}};
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class LlmRecordReplay : public ::testing::Test {
 protected:
  LlmRecordReplay() : key(random_secret("sk-ant-it-")), key_scope(key_env, key) {
    auto loaded = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
    if (!loaded) throw std::runtime_error(loaded.error().to_string());
    registry = std::make_unique<r2r::core::plugin_registry>(std::move(*loaded));
    cassette = (tmp.path() / "run.cassette.jsonl").string();
  }

  // A session from pipeline text; fails the test on any problem.
  std::unique_ptr<r2r::core::pipeline_session> session(const json& instances) {
    const json file{{"version", 1},
                    {"instances", instances},
                    {"pipeline", {{{"stage", "guard"}, {"use", "r2r.guard.cpu-fallback"}}}}};
    auto parsed = r2r::core::parse_pipeline_text(file.dump(), tmp.path() / "pipeline.json");
    EXPECT_TRUE(parsed.problems.empty()) << parsed.problems.front().to_string();
    auto problems = r2r::core::check_pipeline_plugins(*parsed.config, *registry);
    EXPECT_TRUE(problems.empty()) << problems.front().to_string();
    auto s = r2r::core::pipeline_session::create(*parsed.config, *registry);
    EXPECT_TRUE(s.has_value()) << s.error().to_string();
    return s ? std::move(*s) : nullptr;
  }
  json live() const {
    return json{{"use", "r2r.llm.anthropic"},
                {"config",
                 {{"base_url", server.base_url()},
                  {"model", "claude-sonnet-4-5"},
                  {"api_key_env", key_env},
                  {"timeout_ms", 3000},
                  {"retry", {{"max_retries", 1}, {"initial_backoff_ms", 5}}},
                  {"prices", {{"input_per_mtok", 3.0}, {"output_per_mtok", 15.0}, {"cache_read_per_mtok", 0.3}}}}}};
  }
  json recorder() const {
    return json{
        {"use", "r2r.llm.replay"},
        {"config", {{"mode", "record"}, {"target", "live"}, {"cassette", cassette}, {"redact_env", {key_env}}}}};
  }
  json player(const std::string& match = "sequential") const {
    return json{{"use", "r2r.llm.replay"},
                {"config", {{"mode", "replay"}, {"cassette", cassette}, {"match", match}, {"redact_env", {key_env}}}}};
  }

  // The conversation of a run: a tool call, its result, the answer, then a call the server refuses.
  struct outcome {
    std::vector<std::string> responses;  // compact JSON of each successful response
    std::string error;                   // the message of the failing call
    int error_status = 0;
  };
  static std::vector<json> conversation_requests() {
    const json tools = json::parse(
        R"([{"name":"run","description":"Run a command","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}])");
    json first{{"system", "You port CUDA code."}, {"messages", {user_text("Which GPU?")}}, {"tools", tools}};
    json second = first;
    second["messages"].push_back(json::parse(
        R"({"role":"assistant","content":[{"type":"tool_call","id":"toolu_01","name":"run","arguments":{"command":"rocminfo"}}]})"));
    second["messages"].push_back(json::parse(
        R"({"role":"user","content":[{"type":"tool_result","tool_call_id":"toolu_01","content":"gfx942"}]})"));
    json third{{"messages", {user_text("One more?")}}};
    return {first, second, third};
  }
  outcome run_conversation(r2r::core::plugin_instance& llm) {
    outcome o;
    const auto requests = conversation_requests();
    for (std::size_t i = 0; i < requests.size(); ++i) {
      auto r = llm.call("complete", requests[i]);
      if (r) {
        o.responses.push_back(r->dump());
      } else {
        o.error = r.error().message;
        o.error_status = r.error().status;
      }
    }
    return o;
  }
  void script_live_server() {
    server.enqueue(scripted_response::json(
        200, message_body(
                 json::parse(R"([{"type":"tool_use","id":"toolu_01","name":"run","input":{"command":"rocminfo"}}])"),
                 "tool_use", 300, 20)));
    server.enqueue(scripted_response::json(
        200, message_body(json::parse(R"([{"type":"text","text":"A gfx942 (MI300X).\nDone: \"ok\" \u00e9"}])"),
                          "end_turn", 340, 12)));
    // The last call is rejected with the key echoed back, as some servers do.
    server.enqueue(scripted_response::json(
        401, json{{"type", "error"},
                  {"error", {{"type", "authentication_error"}, {"message", "invalid x-api-key " + key}}}}));
  }

  loopback_server server;
  r2r::test::temp_dir tmp;
  std::string key;
  scoped_env key_scope;
  std::unique_ptr<r2r::core::plugin_registry> registry;
  std::string cassette;
};

TEST_F(LlmRecordReplay, ReplayOfARecordedConversationIsByteIdentical) {
  script_live_server();
  outcome recorded;
  {
    auto s = session({{"live", live()}, {"llm", recorder()}});
    ASSERT_TRUE(s);
    recorded = run_conversation(*s->resolve("llm"));
  }
  ASSERT_EQ(recorded.responses.size(), 2u);
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(recorded.error_status, R2R_ERR_FAILED);
  EXPECT_THAT(recorded.error, HasSubstr("auth: anthropic server answered HTTP 401"));

  // Offline: the server is not consulted again.
  auto s = session({{"llm", player()}});
  ASSERT_TRUE(s);
  const outcome replayed = run_conversation(*s->resolve("llm"));
  EXPECT_EQ(replayed.responses, recorded.responses);
  EXPECT_THAT(replayed.error, HasSubstr("auth: anthropic server answered HTTP 401"));
  EXPECT_EQ(replayed.error_status, R2R_ERR_FAILED);
  EXPECT_EQ(server.request_count(), 3u);

  // Totals of the replay are those of the recorded run.
  auto totals = s->resolve("llm")->call("totals", json::object());
  ASSERT_TRUE(totals) << totals.error().to_string();
  EXPECT_EQ((*totals)["calls"], 2);
  EXPECT_EQ((*totals)["usage"]["input_tokens"], 640);
  EXPECT_EQ((*totals)["usage"]["cache_read_tokens"], 14);
}

TEST_F(LlmRecordReplay, TheKeyIsInNoCassetteResponseOrError) {
  script_live_server();
  auto s = session({{"live", live()}, {"llm", recorder()}});
  ASSERT_TRUE(s);
  const outcome o = run_conversation(*s->resolve("llm"));
  s.reset();
  // The key did go over the wire, in the header only.
  for (const auto& r : server.requests()) {
    EXPECT_EQ(r.header("x-api-key"), key);
    EXPECT_THAT(r.body, Not(HasSubstr(key)));
  }
  const std::string text = read_file(cassette);
  ASSERT_FALSE(text.empty());
  EXPECT_THAT(text, Not(HasSubstr(key)));
  EXPECT_THAT(text, HasSubstr("invalid x-api-key [REDACTED]"));
  EXPECT_THAT(o.error, Not(HasSubstr(key)));
  for (const auto& r : o.responses) EXPECT_THAT(r, Not(HasSubstr(key)));
}

TEST_F(LlmRecordReplay, AChangedRequestFailsWithItsFirstDifference) {
  script_live_server();
  {
    auto s = session({{"live", live()}, {"llm", recorder()}});
    ASSERT_TRUE(s);
    run_conversation(*s->resolve("llm"));
  }
  auto s = session({{"llm", player()}});
  ASSERT_TRUE(s);
  auto requests = conversation_requests();
  requests[0]["messages"][0]["content"][0]["text"] = "Which CPU?";
  auto r = s->resolve("llm")->call("complete", requests[0]);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().status, R2R_ERR_FAILED);
  EXPECT_THAT(r.error().message,
              HasSubstr("replay_mismatch: request #1 does not match exchange 1 (" + cassette + ":1)"));
  EXPECT_THAT(r.error().message,
              HasSubstr("first difference at /messages/0/content/0/text: character 6: recorded \"Which GPU?\", this "
                        "run \"Which CPU?\""));
}

TEST_F(LlmRecordReplay, TheRecorderKeepsTheBackendsStatus) {
  // 503 twice: the live backend gives up as unavailable; the recorder must say the same, and so
  // must its replay.
  server.enqueue(
      scripted_response::json(503, json{{"type", "error"}, {"error", {{"type", "api_error"}, {"message", "down"}}}}));
  server.enqueue(
      scripted_response::json(503, json{{"type", "error"}, {"error", {{"type", "api_error"}, {"message", "down"}}}}));
  const json request{{"messages", {user_text("hi")}}};
  {
    auto s = session({{"live", live()}, {"llm", recorder()}});
    ASSERT_TRUE(s);
    auto r = s->resolve("llm")->call("complete", request);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().status, R2R_ERR_UNAVAILABLE);
    EXPECT_THAT(r.error().message, HasSubstr("server_error: anthropic server answered HTTP 503"));
  }
  EXPECT_THAT(read_file(cassette), HasSubstr(R"("status":"unavailable")"));
  auto s = session({{"llm", player()}});
  ASSERT_TRUE(s);
  auto r = s->resolve("llm")->call("complete", request);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().status, R2R_ERR_UNAVAILABLE);
}

}  // namespace
