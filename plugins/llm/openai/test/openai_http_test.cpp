// SPDX-License-Identifier: MIT
// r2r.llm.openai over real HTTP on 127.0.0.1: a cpp-httplib server speaks Chat Completions at a
// configurable base URL (as vLLM, llama.cpp's server and Ollama do), checking every request,
// while the backend runs tool calls, multi-turn tool results, retries on 429 (Retry-After) and
// 500, a response slower than the timeout, truncated JSON, and a 401 that must not be retried.
#include "loopback_server.hpp"
#include "openai_backend.hpp"
#include "test_helpers.hpp"

#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::llm;
using namespace r2r::plugins::llm::testkit;
using nlohmann::json;
using r2r::sdk::llm::complete_request;
using r2r::sdk::llm::content_block;
using ::testing::HasSubstr;
using ::testing::Not;

const char* const key_env = "R2R_TEST_OPENAI_KEY";

json completion(const json& message, const std::string& finish, int prompt, int completion_tokens) {
  return json{{"id", "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT"},
              {"object", "chat.completion"},
              {"created", 1741569952},
              {"model", "Qwen/Qwen2.5-Coder-32B-Instruct"},
              {"choices",
               json::array({{{"index", 0}, {"message", message}, {"logprobs", nullptr}, {"finish_reason", finish}}})},
              {"usage",
               {{"prompt_tokens", prompt},
                {"completion_tokens", completion_tokens},
                {"total_tokens", prompt + completion_tokens}}}};
}

scripted_response hello() {
  return scripted_response::json(200, completion({{"role", "assistant"}, {"content", "Hello!"}}, "stop", 9, 2));
}

complete_request ask(const std::string& text) {
  complete_request r;
  r.messages.push_back({"user", {content_block::make_text(text)}});
  return r;
}

class OpenAiHttp : public ::testing::Test {
 protected:
  OpenAiHttp() : key(random_secret("sk-proj-test")), key_scope(key_env, key) {}

  std::unique_ptr<openai_backend> make(json overrides = json::object()) {
    json c{{"base_url", server.base_url("/v1")},
           {"model", "Qwen/Qwen2.5-Coder-32B-Instruct"},
           {"api_key_env", key_env},
           {"connect_timeout_ms", 1000},
           {"timeout_ms", 3000},
           {"retry", {{"max_retries", 3}, {"initial_backoff_ms", 10}, {"max_backoff_ms", 40}}}};
    c.merge_patch(overrides);
    return std::make_unique<openai_backend>(c.get<openai_backend::config>(), host.sdk_host());
  }
  void expect_wire_requests(bool with_key = true) const {
    for (const auto& r : server.requests()) {
      EXPECT_EQ(r.method, "POST");
      EXPECT_EQ(r.path, "/v1/chat/completions");
      EXPECT_EQ(r.header("authorization"), with_key ? "Bearer " + key : "");
      EXPECT_THAT(r.header("content-type"), HasSubstr("application/json"));
      const json body = r.json();
      EXPECT_EQ(body["model"], "Qwen/Qwen2.5-Coder-32B-Instruct");
      EXPECT_TRUE(body["messages"].is_array());
    }
  }

  loopback_server server;
  r2r::sdk::testing::fake_host host;
  std::string key;
  scoped_env key_scope;
};

TEST_F(OpenAiHttp, ToolCallThenToolResultOverTwoTurns) {
  server.set_handler([](const recorded_request& req) {
    const json body = req.json();
    const json& last = body["messages"].back();
    if (last["role"] == "tool") {
      const json& assistant = body["messages"][body["messages"].size() - 2];
      EXPECT_EQ(assistant["tool_calls"][0]["id"], "call_7Fz3");
      EXPECT_EQ(json::parse(assistant["tool_calls"][0]["function"]["arguments"].get<std::string>())["command"], "ls");
      EXPECT_EQ(last["tool_call_id"], "call_7Fz3");
      EXPECT_EQ(last["content"], "train.py\nsetup.py");
      return scripted_response::json(
          200, completion({{"role", "assistant"}, {"content", "There is a train.py."}}, "stop", 220, 8));
    }
    EXPECT_EQ(body["messages"][0], json({{"role", "system"}, {"content", "Be brief."}}));
    EXPECT_EQ(body["tools"][0]["type"], "function");
    EXPECT_EQ(body["tools"][0]["function"]["name"], "run");
    EXPECT_EQ(body["tool_choice"], "auto");
    EXPECT_EQ(body["max_tokens"], 77);
    return scripted_response::json(
        200, completion({{"role", "assistant"},
                         {"content", nullptr},
                         {"tool_calls",
                          json::array({{{"id", "call_7Fz3"},
                                        {"type", "function"},
                                        {"function", {{"name", "run"}, {"arguments", "{\"command\":\"ls\"}"}}}}})}},
                        "tool_calls", 200, 15));
  });
  auto backend = make();
  auto ctx = host.context();
  complete_request turn = ask("What is in the repository?");
  turn.system = "Be brief.";
  turn.max_tokens = 77;
  turn.tools.push_back(
      {"run", "Run a shell command", json::parse(R"({"type":"object","properties":{"command":{"type":"string"}}})")});
  turn.choice = r2r::sdk::llm::tool_choice{"auto", ""};
  const auto first = backend->complete(turn, ctx);
  ASSERT_EQ(first.stop_reason, "tool_use");
  ASSERT_EQ(first.content.size(), 1u);
  EXPECT_EQ(first.content[0].arguments["command"], "ls");
  EXPECT_EQ(first.provider, "openai");

  turn.messages.push_back({"assistant", first.content});
  turn.messages.push_back({"user", {content_block::make_tool_result("call_7Fz3", "train.py\nsetup.py")}});
  const auto second = backend->complete(turn, ctx);
  EXPECT_EQ(second.text(), "There is a train.py.");
  EXPECT_EQ(second.stop_reason, "end_turn");
  EXPECT_EQ(backend->totals({}).usage.input_tokens, 420);
  EXPECT_EQ(server.request_count(), 2u);
  expect_wire_requests();
}

TEST_F(OpenAiHttp, LocalServerWithoutKeySendsNoAuthorization) {
  server.enqueue(hello());
  auto backend = make(json{{"api_key_env", "R2R_TEST_KEY_THAT_IS_NOT_SET"}, {"api_key_required", false}});
  auto ctx = host.context();
  EXPECT_EQ(backend->complete(ask("hi"), ctx).text(), "Hello!");
  expect_wire_requests(false);
}

TEST_F(OpenAiHttp, RateLimitHonoursRetryAfterMilliseconds) {
  auto limited = scripted_response::json(
      429, json::parse(R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})"));
  limited.headers = {{"retry-after-ms", "400"}, {"retry-after", "1"}};
  server.enqueue(limited);
  server.enqueue(hello());
  auto backend = make();
  auto ctx = host.context();
  const auto start = std::chrono::steady_clock::now();
  const auto r = backend->complete(ask("hi"), ctx);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_GE(ms_since(start), 400);
  EXPECT_LT(ms_since(start), 950) << "retry-after-ms is the finer and wins over retry-after";
  expect_wire_requests();
}

TEST_F(OpenAiHttp, ServerErrorThenSuccess) {
  server.enqueue(scripted_response::json(
      500, json::parse(R"({"error":{"message":"The server had an error","type":"server_error"}})")));
  server.enqueue(hello());
  auto backend = make();
  auto ctx = host.context();
  EXPECT_EQ(backend->complete(ask("hi"), ctx).attempts, 2);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST_F(OpenAiHttp, UnauthorizedIsNotRetriedAndTheKeyIsRedacted) {
  server.enqueue(scripted_response::json(401, json{{"error",
                                                    {{"message", "Incorrect API key provided: " + key + "."},
                                                     {"type", "invalid_request_error"},
                                                     {"code", "invalid_api_key"}}}}));
  auto backend = make();
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_FAILED);
  EXPECT_THAT(message, HasSubstr("auth: openai server answered HTTP 401: invalid_request_error: Incorrect API key"));
  EXPECT_THAT(message, Not(HasSubstr(key)));
  EXPECT_FALSE(logged(host, key));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(OpenAiHttp, ResponseSlowerThanTheTimeoutFails) {
  auto slow = hello();
  slow.delay = std::chrono::milliseconds(5000);
  server.enqueue(slow);
  auto backend = make(json{{"timeout_ms", 250}, {"retry", {{"max_retries", 0}}}});
  auto ctx = host.context();
  const auto start = std::chrono::steady_clock::now();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_UNAVAILABLE);
  EXPECT_THAT(message, HasSubstr("timeout:"));
  EXPECT_LT(ms_since(start), 2500);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(OpenAiHttp, TruncatedJsonIsAClearErrorAndNotRetried) {
  scripted_response cut;
  cut.body = hello().body.substr(0, 40);
  server.enqueue(cut);
  auto backend = make();
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_THAT(message, HasSubstr("malformed_response: the openai server answered with a success status"));
  EXPECT_THAT(message, HasSubstr("truncated"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(OpenAiHttp, VllmContextErrorIsReportedAsContextLength) {
  server.enqueue(scripted_response::json(
      400,
      json::parse(
          R"({"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion).","type":"BadRequestError","param":null,"code":400})")));
  auto backend = make();
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_THAT(message,
              HasSubstr("context_length: openai server answered HTTP 400: BadRequestError: This model's maximum"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(OpenAiHttp, WrongBaseUrlIsNotFoundWithAHint) {
  auto backend = make(json{{"base_url", server.base_url("/wrong")}});
  server.set_handler([](const recorded_request& r) {
    return scripted_response::json(404, json{{"error", "404 page not found: " + r.path}});
  });
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_THAT(message, HasSubstr("not_found: openai server answered HTTP 404"));
  EXPECT_THAT(message, HasSubstr("Check base_url (http://127.0.0.1:"));
}

}  // namespace
