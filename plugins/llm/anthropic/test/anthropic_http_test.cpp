// SPDX-License-Identifier: MIT
// r2r.llm.anthropic over real HTTP on 127.0.0.1: a cpp-httplib server speaks the Messages API
// (checking each request's path, headers and body) while the backend runs tool calls, multi-turn
// tool results, retries on 429 (Retry-After), 529 and 500, a response slower than the timeout,
// truncated JSON, a dropped connection, and a 401 that must not be retried.
#include "anthropic_backend.hpp"
#include "loopback_server.hpp"
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

const char* const key_env = "R2R_TEST_ANTHROPIC_KEY";

json anthropic_error(const std::string& type, const std::string& message) {
  return json{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}, {"request_id", "req_011CTest"}};
}

json message_body(const json& content, const std::string& stop, int in, int out) {
  return json{{"id", "msg_01XFDUDYJgAACzvnptvVoYEL"},
              {"type", "message"},
              {"role", "assistant"},
              {"model", "claude-sonnet-4-5-20250929"},
              {"content", content},
              {"stop_reason", stop},
              {"stop_sequence", nullptr},
              {"usage",
               {{"input_tokens", in},
                {"output_tokens", out},
                {"cache_creation_input_tokens", 0},
                {"cache_read_input_tokens", 0}}}};
}

scripted_response hello() {
  return scripted_response::json(
      200, message_body(json::array({{{"type", "text"}, {"text", "Hello!"}}}), "end_turn", 10, 3));
}

complete_request ask(const std::string& text) {
  complete_request r;
  r.messages.push_back({"user", {content_block::make_text(text)}});
  return r;
}

class AnthropicHttp : public ::testing::Test {
 protected:
  AnthropicHttp() : key(random_secret("sk-ant-test-")), key_scope(key_env, key) {}

  json config(json overrides = json::object()) const {
    json c{{"base_url", server.base_url()},
           {"model", "claude-sonnet-4-5"},
           {"api_key_env", key_env},
           {"connect_timeout_ms", 1000},
           {"timeout_ms", 3000},
           {"retry", {{"max_retries", 3}, {"initial_backoff_ms", 10}, {"max_backoff_ms", 40}}},
           {"prices", {{"input_per_mtok", 3.0}, {"output_per_mtok", 15.0}}}};
    c.merge_patch(overrides);
    return c;
  }
  std::unique_ptr<anthropic_backend> make(json overrides = json::object()) {
    return std::make_unique<anthropic_backend>(config(std::move(overrides)).get<anthropic_backend::config>(),
                                               host.sdk_host());
  }
  // Every request the server saw must be a well-formed Messages API call with our key.
  void expect_wire_requests() const {
    for (const auto& r : server.requests()) {
      EXPECT_EQ(r.method, "POST");
      EXPECT_EQ(r.path, "/v1/messages");
      EXPECT_EQ(r.header("x-api-key"), key);
      EXPECT_EQ(r.header("anthropic-version"), "2023-06-01");
      EXPECT_THAT(r.header("content-type"), HasSubstr("application/json"));
      const json body = r.json();
      EXPECT_TRUE(body.contains("model") && body.contains("max_tokens") && body["messages"].is_array());
    }
  }

  loopback_server server;
  r2r::sdk::testing::fake_host host;
  std::string key;
  scoped_env key_scope;
};

TEST_F(AnthropicHttp, ToolCallThenToolResultOverTwoTurns) {
  server.set_handler([](const recorded_request& req) {
    const json body = req.json();
    const json& last = body["messages"].back();
    if (last["content"][0]["type"] == "tool_result") {
      // The second turn must carry the first turn's tool_use and answer it by id.
      const json& assistant = body["messages"][1];
      EXPECT_EQ(assistant["role"], "assistant");
      EXPECT_EQ(assistant["content"][1]["type"], "tool_use");
      EXPECT_EQ(last["content"][0]["tool_use_id"], "toolu_01A09q90qw90lq917835lq9");
      EXPECT_EQ(last["content"][0]["content"], "  Name: gfx942");
      return scripted_response::json(
          200, message_body(json::array({{{"type", "text"}, {"text", "The sandbox sees a gfx942 GPU."}}}), "end_turn",
                            512, 12));
    }
    EXPECT_EQ(body["tools"][0]["name"], "run");
    EXPECT_EQ(body["tools"][0]["input_schema"]["required"][0], "command");
    EXPECT_EQ(body["system"], "You port CUDA repositories.");
    return scripted_response::json(200, message_body(json::array({{{"type", "text"}, {"text", "I'll look."}},
                                                                  {{"type", "tool_use"},
                                                                   {"id", "toolu_01A09q90qw90lq917835lq9"},
                                                                   {"name", "run"},
                                                                   {"input", {{"command", "rocminfo | grep gfx"}}}}}),
                                                     "tool_use", 400, 40));
  });
  auto backend = make();
  auto ctx = host.context();
  complete_request turn = ask("Which GPU does the sandbox see?");
  turn.system = "You port CUDA repositories.";
  turn.tools.push_back(
      {"run", "Run a shell command",
       json::parse(R"({"type":"object","properties":{"command":{"type":"string"}},"required":["command"]})")});
  const auto first = backend->complete(turn, ctx);
  ASSERT_EQ(first.stop_reason, "tool_use");
  ASSERT_EQ(first.content.size(), 2u);
  const auto& call = first.content[1];
  EXPECT_EQ(call.type, content_block::kind::tool_call);
  EXPECT_EQ(call.name, "run");
  EXPECT_EQ(call.arguments["command"], "rocminfo | grep gfx");
  EXPECT_EQ(first.provider, "anthropic");
  EXPECT_EQ(first.attempts, 1);
  EXPECT_DOUBLE_EQ(first.cost_usd, (400 * 3.0 + 40 * 15.0) / 1e6);

  turn.messages.push_back({"assistant", first.content});
  turn.messages.push_back({"user", {content_block::make_tool_result(call.id, "  Name: gfx942")}});
  const auto second = backend->complete(turn, ctx);
  EXPECT_EQ(second.stop_reason, "end_turn");
  EXPECT_EQ(second.text(), "The sandbox sees a gfx942 GPU.");
  EXPECT_EQ(second.model, "claude-sonnet-4-5-20250929");
  EXPECT_GE(second.latency_ms, 0);

  const auto totals = backend->totals({});
  EXPECT_EQ(totals.calls, 2);
  EXPECT_EQ(totals.usage.input_tokens, 912);
  EXPECT_EQ(totals.usage.output_tokens, 52);
  EXPECT_NEAR(totals.cost_usd, (912 * 3.0 + 52 * 15.0) / 1e6, 1e-12);
  EXPECT_EQ(server.request_count(), 2u);
  expect_wire_requests();
}

TEST_F(AnthropicHttp, RateLimitHonoursRetryAfter) {
  auto limited = scripted_response::json(
      429, anthropic_error("rate_limit_error", "Number of requests has exceeded your rate limit"));
  limited.headers = {{"retry-after", "1"}};
  server.enqueue(limited);
  server.enqueue(hello());
  auto backend = make();
  auto ctx = host.context();
  const auto start = std::chrono::steady_clock::now();
  const auto r = backend->complete(ask("hi"), ctx);
  const auto waited = ms_since(start);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.text(), "Hello!");
  EXPECT_GE(waited, 1000) << "Retry-After: 1 must be honoured, not the 10 ms backoff";
  EXPECT_LT(waited, 4000);
  EXPECT_GE(r.latency_ms, 1000) << "latency counts retries and waits";
  EXPECT_TRUE(logged(host, "HTTP 429 rate_limit_error")) << "the retry is logged";
  EXPECT_EQ(server.request_count(), 2u);
  expect_wire_requests();
}

TEST_F(AnthropicHttp, RetryAfterLongerThanAllowedFailsAtOnce) {
  auto limited = scripted_response::json(429, anthropic_error("rate_limit_error", "slow down"));
  limited.headers = {{"retry-after", "3600"}};
  server.enqueue(limited);
  auto backend = make();
  auto ctx = host.context();
  const auto start = std::chrono::steady_clock::now();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_LT(ms_since(start), 1000);
  EXPECT_EQ(status, R2R_ERR_UNAVAILABLE);
  EXPECT_THAT(message, HasSubstr("rate_limited: HTTP 429 and the server asks to retry after 3600000 ms"));
  EXPECT_THAT(message, HasSubstr("retry.max_retry_after_ms"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(AnthropicHttp, ServerErrorThenSuccess) {
  server.enqueue(scripted_response::json(500, anthropic_error("api_error", "Internal server error")));
  server.enqueue(hello());
  auto backend = make();
  auto ctx = host.context();
  const auto r = backend->complete(ask("hi"), ctx);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.text(), "Hello!");
  EXPECT_EQ(backend->totals({}).calls, 1);
  EXPECT_EQ(backend->totals({}).failed_calls, 0);
  EXPECT_EQ(server.request_count(), 2u);
  expect_wire_requests();
}

TEST_F(AnthropicHttp, OverloadedIsRetriedWithBackoff) {
  server.enqueue(scripted_response::json(529, anthropic_error("overloaded_error", "Overloaded")));
  server.enqueue(scripted_response::json(529, anthropic_error("overloaded_error", "Overloaded")));
  server.enqueue(hello());
  auto backend = make();
  auto ctx = host.context();
  EXPECT_EQ(backend->complete(ask("hi"), ctx).attempts, 3);
  EXPECT_EQ(server.request_count(), 3u);
}

TEST_F(AnthropicHttp, RetriesRunOutWithTheLastErrorAndTheAttemptCount) {
  for (int i = 0; i < 3; ++i) server.enqueue(scripted_response::json(503, anthropic_error("api_error", "unavailable")));
  auto backend = make(json{{"retry", {{"max_retries", 2}}}});
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_UNAVAILABLE);
  EXPECT_THAT(message, HasSubstr("server_error: anthropic server answered HTTP 503: api_error: unavailable"));
  EXPECT_THAT(message, HasSubstr("(after 3 attempts)"));
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(backend->totals({}).failed_calls, 1);
}

TEST_F(AnthropicHttp, UnauthorizedIsNotRetriedAndTheEchoedKeyIsRedacted) {
  // Some servers echo the key they rejected; it must not reach the message or the logs.
  server.enqueue(scripted_response::json(401, anthropic_error("authentication_error", "invalid x-api-key: " + key)));
  auto backend = make();
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_FAILED);
  EXPECT_THAT(message, HasSubstr("auth: anthropic server answered HTTP 401: authentication_error: invalid x-api-key"));
  EXPECT_THAT(message, HasSubstr("[REDACTED]"));
  EXPECT_THAT(message, HasSubstr("Check the API key in environment variable R2R_TEST_ANTHROPIC_KEY"));
  EXPECT_THAT(message, Not(HasSubstr(key)));
  EXPECT_FALSE(logged(host, key));
  EXPECT_EQ(server.request_count(), 1u) << "a 401 is never retried";
}

TEST_F(AnthropicHttp, ResponseSlowerThanTheTimeoutFails) {
  auto slow = hello();
  slow.delay = std::chrono::milliseconds(5000);
  server.enqueue(slow);
  server.enqueue(slow);
  auto backend = make(json{{"timeout_ms", 300}, {"retry", {{"max_retries", 1}}}});
  auto ctx = host.context();
  const auto start = std::chrono::steady_clock::now();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  const auto took = ms_since(start);
  EXPECT_EQ(status, R2R_ERR_UNAVAILABLE);
  EXPECT_THAT(message, HasSubstr("timeout: POST http://127.0.0.1:"));
  EXPECT_THAT(message, HasSubstr("(attempt 2 of 2)"));
  EXPECT_THAT(message, HasSubstr("timeout_ms (300 ms)"));
  EXPECT_GE(took, 600);
  EXPECT_LT(took, 3000) << "each attempt stops at timeout_ms, not when the server answers";
  EXPECT_EQ(server.request_count(), 2u);
}

TEST_F(AnthropicHttp, TruncatedJsonIsAClearErrorAndNotRetried) {
  const std::string full = hello().body;
  scripted_response cut;
  cut.body = full.substr(0, full.size() / 2);
  server.enqueue(cut);
  auto backend = make();
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_FAILED);
  EXPECT_THAT(message, HasSubstr("malformed_response: the anthropic server answered with a success status"));
  EXPECT_THAT(message, HasSubstr("(truncated)"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(AnthropicHttp, DroppedConnectionMidBodyIsRetried) {
  auto dropped = hello();
  dropped.cut_after_bytes = 20;
  server.enqueue(dropped);
  server.enqueue(hello());
  auto backend = make();
  auto ctx = host.context();
  const auto r = backend->complete(ask("hi"), ctx);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.text(), "Hello!");
}

TEST_F(AnthropicHttp, ContextLengthErrorSaysWhatToDo) {
  server.enqueue(scripted_response::json(
      400, anthropic_error("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")));
  auto backend = make();
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_FAILED);
  EXPECT_THAT(message, HasSubstr("context_length: anthropic server answered HTTP 400"));
  EXPECT_THAT(message, HasSubstr("does not fit the model's context window"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(AnthropicHttp, RefusalIsAnErrorButItsTokensAreCounted) {
  server.enqueue(scripted_response::json(200, message_body(json::array(), "refusal", 20, 2)));
  auto backend = make();
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_FAILED);
  EXPECT_THAT(message, HasSubstr("refusal: the model refused to answer"));
  const auto t = backend->totals({});
  EXPECT_EQ(t.calls, 1);
  EXPECT_EQ(t.failed_calls, 1);
  EXPECT_EQ(t.usage.input_tokens, 20);
}

TEST_F(AnthropicHttp, CapsRefuseBeforeAnythingIsSent) {
  server.set_handler([](const recorded_request&) { return hello(); });
  auto backend = make(json{{"limits", {{"max_total_tokens", 100}}}});
  auto ctx = host.context();
  complete_request r = ask("hi");
  r.max_tokens = 16;
  backend->complete(r, ctx);  // 10 + 3 tokens used
  r.max_tokens = 90;
  const auto [status, message] = error_of([&] { backend->complete(r, ctx); });
  EXPECT_EQ(status, R2R_ERR_FAILED);
  EXPECT_THAT(message, HasSubstr("budget_exceeded: refused before sending: max_total_tokens 100: used 13 + "));
  EXPECT_THAT(message, HasSubstr("over by"));
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(backend->totals({}).refused_calls, 1);
}

TEST_F(AnthropicHttp, MissingKeyIsUnavailableAndNothingIsSent) {
  auto backend = make(json{{"api_key_env", "R2R_TEST_KEY_THAT_IS_NOT_SET"}});
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_UNAVAILABLE);
  EXPECT_THAT(message, HasSubstr("missing_api_key: environment variable R2R_TEST_KEY_THAT_IS_NOT_SET is not set"));
  EXPECT_EQ(server.request_count(), 0u);
}

TEST_F(AnthropicHttp, NoServerIsUnavailable) {
  int closed_port = 0;
  {
    loopback_server gone;
    closed_port = gone.port();
  }
  auto backend =
      make(json{{"base_url", "http://127.0.0.1:" + std::to_string(closed_port)}, {"retry", {{"max_retries", 1}}}});
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_UNAVAILABLE);
  EXPECT_THAT(message, HasSubstr("connect: POST http://127.0.0.1:"));
  EXPECT_THAT(message, HasSubstr("(attempt 2 of 2)"));
  EXPECT_THAT(message, HasSubstr("Is the server running"));
}

TEST_F(AnthropicHttp, CancellationStopsTheRetryWait) {
  server.set_handler([this](const recorded_request&) {
    host.cancel(true);  // the host asks the call to stop while the server answers 503
    return scripted_response::json(503, anthropic_error("api_error", "down"));
  });
  auto backend = make(json{{"retry", {{"initial_backoff_ms", 5000}, {"max_backoff_ms", 5000}}}});
  auto ctx = host.context();
  const auto start = std::chrono::steady_clock::now();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_EQ(status, R2R_ERR_CANCELLED);
  EXPECT_THAT(message, HasSubstr("cancelled:"));
  EXPECT_LT(ms_since(start), 2000);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(AnthropicHttp, SpendCapIsNotRetried) {
  json body = anthropic_error("rate_limit_error", "You have reached your specified workspace API usage limits.");
  body["error"]["details"] = {{"error_code", "enforced_spend_limit_reached"}};
  server.enqueue(scripted_response::json(429, body));
  auto backend = make();
  auto ctx = host.context();
  const auto [status, message] = error_of([&] { backend->complete(ask("hi"), ctx); });
  EXPECT_THAT(message, HasSubstr("spend_limit:"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST_F(AnthropicHttp, InvalidConversationFailsBeforeSending) {
  auto backend = make();
  auto ctx = host.context();
  complete_request r = ask("hi");
  r.messages.push_back({"user", {content_block::make_tool_result("nope", "x")}});
  const auto [status, message] = error_of([&] { backend->complete(r, ctx); });
  EXPECT_EQ(status, R2R_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("invalid_request: /messages/1/content/0"));
  EXPECT_EQ(server.request_count(), 0u);
}

TEST_F(AnthropicHttp, ConfigRejectsCredentialHeadersAndMoneyCapsWithoutPrices) {
  EXPECT_THROW(make(json{{"headers", {{"X-Api-Key", "literal"}}}}), r2r::sdk::invalid_argument);
  EXPECT_THROW(make(json{{"prices", nullptr}, {"limits", {{"max_cost_usd", 1.0}}}}), r2r::sdk::invalid_argument);
  EXPECT_THROW(make(json{{"base_url", "ftp://example.org"}}), r2r::sdk::invalid_argument);
}

}  // namespace
