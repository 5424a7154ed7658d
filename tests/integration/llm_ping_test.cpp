// SPDX-License-Identifier: MIT
// `repo2rocm llm ping` run as a process against a loopback server: what it prints and sends, its
// exit codes, record-then-replay offline, and an API key that never appears in anything the
// process writes (stdout, stderr at trace level, the cassette).
#include "../unit/test_support.hpp"
#include "loopback_server.hpp"
#include "test_helpers.hpp"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

using namespace r2r::plugins::llm::testkit;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::string exe() {
  return (r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string();
}

json pipeline(const json& instances) {
  return json{{"version", 1},
              {"instances", instances},
              {"pipeline", {{{"stage", "guard"}, {"use", "r2r.guard.cpu-fallback"}}}}};
}

json openai_completion() {
  return json::parse(R"({"id": "chatcmpl-ping", "object": "chat.completion", "created": 1741569952,
    "model": "Qwen/Qwen2.5-Coder-32B-Instruct",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "pong"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 31, "completion_tokens": 2, "total_tokens": 33}})");
}

json anthropic_message() {
  return json::parse(
      R"({"id": "msg_ping", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
    "content": [{"type": "text", "text": "pong"}], "stop_reason": "end_turn",
    "usage": {"input_tokens": 27, "output_tokens": 4}})");
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class LlmPing : public ::testing::Test {
 protected:
  std::string write_pipeline(const std::string& name, const json& instances) {
    return tmp.write(name, pipeline(instances).dump(2)).string();
  }
  json openai_instance() const {
    return json{{"use", "r2r.llm.openai"},
                {"config",
                 {{"base_url", server.base_url("/v1")},
                  {"model", "Qwen/Qwen2.5-Coder-32B-Instruct"},
                  {"api_key_required", false},
                  {"retry", {{"max_retries", 0}}}}}};
  }

  loopback_server server;
  r2r::test::temp_dir tmp;
};

TEST_F(LlmPing, PrintsModelLatencyAndTokensAndSendsATinyRequest) {
  server.enqueue(scripted_response::json(200, openai_completion()));
  const auto file = write_pipeline("p.json", {{"llm", openai_instance()}});
  const auto r = r2r::test::run_process(exe() + " llm ping --pipeline " + file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("instance: llm (r2r.llm.openai)"));
  EXPECT_THAT(r.out, HasSubstr("model:    Qwen/Qwen2.5-Coder-32B-Instruct"));
  EXPECT_THAT(r.out, HasSubstr("latency:  "));
  EXPECT_THAT(r.out, HasSubstr("tokens:   input 31, output 2, cache read 0, cache write 0"));
  EXPECT_THAT(r.out, HasSubstr("reply:    pong"));
  ASSERT_EQ(server.request_count(), 1u);
  const auto sent = server.requests()[0];
  EXPECT_EQ(sent.path, "/v1/chat/completions");
  const json body = sent.json();
  EXPECT_EQ(body["model"], "Qwen/Qwen2.5-Coder-32B-Instruct");
  EXPECT_EQ(body["max_tokens"], 16);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][1], json({{"role", "user"}, {"content", "ping"}}));
}

TEST_F(LlmPing, JsonOutput) {
  server.enqueue(scripted_response::json(200, openai_completion()));
  const auto file = write_pipeline("p.json", {{"llm", openai_instance()}});
  const auto r = r2r::test::run_process(exe() + " llm ping --json --pipeline " + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["ok"], true);
  EXPECT_EQ(doc["instance"], "llm");
  EXPECT_EQ(doc["plugin_id"], "r2r.llm.openai");
  EXPECT_EQ(doc["provider"], "openai");
  EXPECT_EQ(doc["model"], "Qwen/Qwen2.5-Coder-32B-Instruct");
  EXPECT_EQ(doc["usage"]["input_tokens"], 31);
  EXPECT_EQ(doc["usage"]["output_tokens"], 2);
  EXPECT_TRUE(doc["latency_ms"].is_number_integer());
  EXPECT_GE(doc["round_trip_ms"].get<long long>(), doc["latency_ms"].get<long long>());
  EXPECT_EQ(doc["reply"], "pong");
}

TEST_F(LlmPing, ExitCodes) {
  // The call fails: 1, with the reason.
  server.enqueue(scripted_response::json(500, json{{"error", {{"message", "boom"}, {"type", "server_error"}}}}));
  const auto failing = write_pipeline("f.json", {{"llm", openai_instance()}});
  auto r = r2r::test::run_process(exe() + " llm ping --pipeline " + failing);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("server_error: openai server answered HTTP 500: server_error: boom"));

  // No llm instance, an unknown one, or one of another kind: 2.
  r = r2r::test::run_process(exe() + " llm ping --pipeline " + write_pipeline("none.json", json::object()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the pipeline declares no llm instance"));
  r = r2r::test::run_process(exe() + " llm ping --pipeline " + failing + " --instance other");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("the pipeline has no instance named 'other'; its instances are: llm"));
  const auto two = write_pipeline("two.json", {{"a", openai_instance()}, {"b", openai_instance()}});
  r = r2r::test::run_process(exe() + " llm ping --pipeline " + two);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("several llm instances (a, b); choose one with --instance"));
  r = r2r::test::run_process(exe() + " llm ping");
  EXPECT_EQ(r.exit_code, 2);
  r = r2r::test::run_process(exe() + " validate " + failing + " --instance llm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--instance is not an option of `validate`"));
  // A config the plugin's schema rejects: 2, with the pointer.
  json bad = openai_instance();
  bad["config"]["timeout_ms"] = -5;
  r = r2r::test::run_process(exe() + " llm ping --pipeline " + write_pipeline("bad.json", {{"llm", bad}}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("/instances/llm/config/timeout_ms"));
}

TEST_F(LlmPing, RecordThenReplayOffline) {
  server.enqueue(scripted_response::json(200, anthropic_message()));
  const std::string cassette = (tmp.path() / "ping.jsonl").string();
  const json live{
      {"use", "r2r.llm.anthropic"},
      {"config",
       {{"base_url", server.base_url()}, {"model", "claude-sonnet-4-5"}, {"api_key_env", "R2R_IT_PING_KEY"}}}};
  const auto record = write_pipeline(
      "record.json", {{"llm-live", live},
                      {"llm",
                       {{"use", "r2r.llm.replay"},
                        {"config", {{"mode", "record"}, {"target", "llm-live"}, {"cassette", cassette}}}}}});
  const auto recorded = r2r::test::run_process("R2R_IT_PING_KEY=sk-ant-ping-0123456789abcdef " + exe() +
                                               " llm ping --json --pipeline " + record + " --instance llm");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const auto replay = write_pipeline(
      "replay.json", {{"llm", {{"use", "r2r.llm.replay"}, {"config", {{"mode", "replay"}, {"cassette", cassette}}}}}});
  const auto replayed = r2r::test::run_process(exe() + " llm ping --json --pipeline " + replay);
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  json a = json::parse(recorded.out);
  json b = json::parse(replayed.out);
  EXPECT_EQ(b["model"], "claude-sonnet-4-5-20250929");
  EXPECT_EQ(b["usage"], a["usage"]);
  EXPECT_EQ(b["latency_ms"], a["latency_ms"]) << "the recorded latency is replayed";
  a.erase("round_trip_ms");
  b.erase("round_trip_ms");
  a.erase("instance");
  b.erase("instance");
  EXPECT_EQ(a.dump(), b.dump());
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(LlmPing, TheApiKeyAppearsNowhere) {
  const std::string key = random_secret("sk-ant-grep-");
  const std::string cassette = (tmp.path() / "leak.jsonl").string();
  const json live{
      {"use", "r2r.llm.anthropic"},
      {"config",
       {{"base_url", server.base_url()}, {"model", "claude-sonnet-4-5"}, {"api_key_env", "R2R_IT_GREP_KEY"}}}};
  const auto file = write_pipeline(
      "p.json",
      {{"live", live},
       {"llm",
        {{"use", "r2r.llm.replay"}, {"config", {{"mode", "record"}, {"target", "live"}, {"cassette", cassette}}}}}});
  for (const char* json_flag : {"", " --json"}) {
    std::filesystem::remove(cassette);
    // The server rejects the key and echoes it back, as some do.
    server.enqueue(scripted_response::json(
        401, json{{"type", "error"},
                  {"error", {{"type", "authentication_error"}, {"message", "invalid x-api-key " + key}}}}));
    const auto r = r2r::test::run_process("R2R_IT_GREP_KEY=" + key + " " + exe() + " --log-level trace llm ping" +
                                          json_flag + " --pipeline " + file + " --instance llm");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_THAT(r.out + r.err, HasSubstr("auth: anthropic server answered HTTP 401"));
    EXPECT_THAT(r.out, Not(HasSubstr(key)));
    EXPECT_THAT(r.err, Not(HasSubstr(key)));
    const std::string recorded = read_file(cassette);
    EXPECT_THAT(recorded, HasSubstr("invalid x-api-key [REDACTED]"));
    EXPECT_THAT(recorded, Not(HasSubstr(key)));
  }
  // It did travel, in the request header only.
  ASSERT_GE(server.request_count(), 2u);
  for (const auto& req : server.requests()) {
    EXPECT_EQ(req.header("x-api-key"), key);
    EXPECT_THAT(req.body, Not(HasSubstr(key)));
  }
}

}  // namespace
