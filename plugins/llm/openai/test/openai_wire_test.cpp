// SPDX-License-Identifier: MIT
// The Chat Completions wire format without a network: request bodies as OpenAI documents them
// (and vLLM, llama.cpp and Ollama accept), responses and error bodies of each server read back.
#include "openai_wire.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::llm;
using nlohmann::json;
using r2r::sdk::llm::complete_request;
using ::testing::HasSubstr;

const openai_wire wire("max_tokens");

TEST(OpenAiWire, WritesSystemToolCallsAndToolMessages) {
  const auto request = json::parse(R"({
    "system": "You port CUDA code.",
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "Which GPU?", "cache": true}]},
      {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
                                        {"type": "tool_call", "id": "call_1", "name": "run", "arguments": {"command": "rocminfo"}},
                                        {"type": "tool_call", "id": "call_2", "name": "run", "arguments": {"command": "hipconfig"}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_call_id": "call_1", "content": "gfx942"},
                                   {"type": "tool_result", "tool_call_id": "call_2", "content": "no hipconfig", "is_error": true},
                                   {"type": "text", "text": "Go on."}]}
    ],
    "tools": [{"name": "run", "description": "Run a command", "parameters": {"type": "object"}}],
    "tool_choice": {"mode": "any"}, "temperature": 0, "stop": ["END"]
  })")
                           .get<complete_request>();
  const json body = json::parse(wire.encode(request, "gpt-4.1", 300));
  const json expected = json::parse(R"({
    "model": "gpt-4.1", "max_tokens": 300,
    "messages": [
      {"role": "system", "content": "You port CUDA code."},
      {"role": "user", "content": "Which GPU?"},
      {"role": "assistant", "content": "Checking.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "run", "arguments": "{\"command\":\"rocminfo\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "run", "arguments": "{\"command\":\"hipconfig\"}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "gfx942"},
      {"role": "tool", "tool_call_id": "call_2", "content": "Error: no hipconfig"},
      {"role": "user", "content": "Go on."}
    ],
    "tools": [{"type": "function", "function": {"name": "run", "description": "Run a command", "parameters": {"type": "object"}}}],
    "tool_choice": "required", "temperature": 0, "stop": ["END"]
  })");
  EXPECT_EQ(body, expected) << body.dump(2);
}

TEST(OpenAiWire, ToolOnlyAssistantTurnsHaveNullContentAndNamedChoiceIsAFunction) {
  const auto request = json::parse(R"({
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
      {"role": "assistant", "content": [{"type": "tool_call", "id": "c", "name": "run", "arguments": {}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_call_id": "c", "content": "ok"}]}
    ],
    "tools": [{"name": "run", "parameters": {"type": "object"}}],
    "tool_choice": {"mode": "tool", "name": "run"}
  })")
                           .get<complete_request>();
  const json body = json::parse(openai_wire("max_completion_tokens").encode(request, "m", 5));
  EXPECT_EQ(body["max_completion_tokens"], 5);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_EQ(body["messages"][0]["content"], json::parse(R"([{"type":"text","text":"a"},{"type":"text","text":"b"}])"));
  EXPECT_TRUE(body["messages"][1]["content"].is_null());
  EXPECT_EQ(body["messages"][1]["tool_calls"][0]["function"]["arguments"], "{}");
  EXPECT_EQ(body["messages"].size(), 3u) << "a user turn of tool results only adds no empty user message";
  EXPECT_EQ(body["tool_choice"], json::parse(R"({"type":"function","function":{"name":"run"}})"));
}

TEST(OpenAiWire, ReadsToolCallsAndSplitsCachedTokens) {
  const auto d = wire.decode(R"({
    "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", "object": "chat.completion", "created": 1741570283,
    "model": "gpt-4.1-2025-04-14",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
      "message": {"role": "assistant", "content": null, "refusal": null,
        "tool_calls": [{"id": "call_abc123", "type": "function",
                        "function": {"name": "run", "arguments": "{\"command\":\"rocminfo | grep gfx\"}"}}]}}],
    "usage": {"prompt_tokens": 1117, "completion_tokens": 46, "total_tokens": 1163,
              "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0}}
  })",
                             "gpt-4.1");
  ASSERT_FALSE(d.problem);
  const auto& r = d.response;
  EXPECT_EQ(r.id, "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG");
  EXPECT_EQ(r.model, "gpt-4.1-2025-04-14");
  ASSERT_EQ(r.content.size(), 1u);
  EXPECT_EQ(r.content[0].id, "call_abc123");
  EXPECT_EQ(r.content[0].arguments["command"], "rocminfo | grep gfx");
  EXPECT_EQ(r.stop_reason, "tool_use");
  EXPECT_EQ(r.usage.input_tokens, 93);
  EXPECT_EQ(r.usage.cache_read_tokens, 1024);
  EXPECT_EQ(r.usage.output_tokens, 46);
}

TEST(OpenAiWire, ReadsWhatLocalServersSend) {
  // llama.cpp and Ollama: finish_reason "stop" on a tool call, arguments as an object, no call id.
  const auto d = wire.decode(R"({"model": "qwen2.5-coder",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "",
      "tool_calls": [{"function": {"name": "run", "arguments": {"command": "ls"}}}]}}],
    "usage": {"prompt_tokens": 50, "completion_tokens": 9}})",
                             "qwen");
  ASSERT_FALSE(d.problem);
  EXPECT_EQ(d.response.stop_reason, "tool_use");
  EXPECT_EQ(d.response.id, "");
  ASSERT_EQ(d.response.content.size(), 1u);
  EXPECT_EQ(d.response.content[0].id, "call_0");
  EXPECT_EQ(d.response.content[0].arguments["command"], "ls");

  const auto text = wire.decode(R"({"choices": [{"finish_reason": "length", "message": {"content": "abc"}}]})", "m");
  EXPECT_EQ(text.response.stop_reason, "max_tokens");
  EXPECT_EQ(text.response.model, "m");
  EXPECT_EQ(text.response.text(), "abc");
  EXPECT_EQ(text.response.usage.input_tokens, 0) << "a server without usage reports zero";
}

TEST(OpenAiWire, RefusalsFiltersAndBadArgumentsAreProblems) {
  auto d = wire.decode(
      R"({"choices":[{"finish_reason":"stop","message":{"content":null,"refusal":"I can't help with that."}}],
                           "usage":{"prompt_tokens":9,"completion_tokens":7}})",
      "m");
  ASSERT_TRUE(d.problem);
  EXPECT_EQ(*d.problem, failure::refusal);
  EXPECT_THAT(d.problem_detail, HasSubstr("I can't help with that."));
  EXPECT_EQ(d.response.usage.output_tokens, 7);

  d = wire.decode(R"({"choices":[{"finish_reason":"content_filter","message":{"content":"partial"}}]})", "m");
  ASSERT_TRUE(d.problem);
  EXPECT_EQ(*d.problem, failure::content_filter);

  d = wire.decode(R"({"choices":[{"finish_reason":"tool_calls","message":{"tool_calls":[
                       {"id":"c1","type":"function","function":{"name":"run","arguments":"{\"command\": \"ls"}}]}}]})",
                  "m");
  ASSERT_TRUE(d.problem);
  EXPECT_EQ(*d.problem, failure::malformed_response);
  EXPECT_THAT(d.problem_detail, HasSubstr("arguments for tool call 'run' (c1) are not valid JSON"));
}

TEST(OpenAiWire, ClassifiesOpenAiVllmLlamaCppAndOllamaErrors) {
  auto e = wire.classify(
      400,
      R"({"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})");
  EXPECT_EQ(e.kind, failure::context_length);
  EXPECT_THAT(e.message, HasSubstr("invalid_request_error: This model's maximum context length"));

  e = wire.classify(
      400,
      R"({"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400})");
  EXPECT_EQ(e.kind, failure::context_length);

  e = wire.classify(
      400,
      R"({"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}})");
  EXPECT_EQ(e.kind, failure::context_length);

  e = wire.classify(404, R"({"error":"model \"llama9\" not found, try pulling it first"})");
  EXPECT_EQ(e.kind, failure::not_found);
  EXPECT_EQ(e.message, "model \"llama9\" not found, try pulling it first");

  e = wire.classify(
      429,
      R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}})");
  EXPECT_EQ(e.kind, failure::spend_limit);
  EXPECT_FALSE(e.retryable);

  e = wire.classify(429,
                    R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})");
  EXPECT_EQ(e.kind, failure::rate_limited);
  EXPECT_TRUE(e.retryable);
}

}  // namespace
