// SPDX-License-Identifier: MIT
// The Anthropic Messages wire format without a network: request bodies written exactly as the API
// documents them, responses and error bodies (modelled on the API's documented examples) read back.
#include "anthropic_wire.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::llm;
using nlohmann::json;
using r2r::sdk::llm::complete_request;
using ::testing::HasSubstr;

const anthropic_wire wire("2023-06-01");

TEST(AnthropicWire, WritesToolsSystemAndToolResultsAsTheMessagesApiExpects) {
  const auto request = json::parse(R"({
    "system": "You port CUDA code.", "cache_system": true,
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "Which GPU?", "cache": true}]},
      {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
                                        {"type": "tool_call", "id": "toolu_1", "name": "run", "arguments": {"command": "rocminfo"}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_call_id": "toolu_1", "content": "gfx942", "is_error": false},
                                   {"type": "text", "text": "Go on."}]}
    ],
    "tools": [{"name": "run", "description": "Run a command", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}],
    "tool_choice": {"mode": "any"}, "temperature": 0.2, "stop": ["END"]
  })")
                           .get<complete_request>();
  const json body = json::parse(wire.encode(request, "claude-sonnet-4-5", 512));
  const json expected = json::parse(R"({
    "model": "claude-sonnet-4-5", "max_tokens": 512,
    "system": [{"type": "text", "text": "You port CUDA code.", "cache_control": {"type": "ephemeral"}}],
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "Which GPU?", "cache_control": {"type": "ephemeral"}}]},
      {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
                                        {"type": "tool_use", "id": "toolu_1", "name": "run", "input": {"command": "rocminfo"}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "gfx942"},
                                   {"type": "text", "text": "Go on."}]}
    ],
    "tools": [{"name": "run", "description": "Run a command", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}],
    "tool_choice": {"type": "any"}, "temperature": 0.2, "stop_sequences": ["END"]
  })");
  EXPECT_EQ(body, expected) << body.dump(2);
}

TEST(AnthropicWire, PlainSystemPromptNamedToolChoiceAndToolErrors) {
  const auto request = json::parse(R"({
    "system": "S",
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "x"}]},
      {"role": "assistant", "content": [{"type": "text", "text": ""}, {"type": "tool_call", "id": "t", "name": "run", "arguments": {}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_call_id": "t", "content": "boom", "is_error": true}]}
    ],
    "tools": [{"name": "run", "parameters": {"type": "object"}}],
    "tool_choice": {"mode": "tool", "name": "run"}
  })")
                           .get<complete_request>();
  const json body = json::parse(wire.encode(request, "m", 16));
  EXPECT_EQ(body["system"], "S");
  EXPECT_EQ(body["tool_choice"], json::parse(R"({"type": "tool", "name": "run"})"));
  EXPECT_EQ(body["messages"][1]["content"].size(), 1u) << "the empty text block next to a tool call is dropped";
  EXPECT_EQ(body["messages"][2]["content"][0]["is_error"], true);
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_FALSE(body["tools"][0].contains("description"));
}

TEST(AnthropicWire, ReadsTextToolUseStopReasonAndUsage) {
  const auto d = wire.decode(R"({
    "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
    "content": [{"type": "thinking", "thinking": "...", "signature": "x"},
                {"type": "text", "text": "I'll check the GPU."},
                {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "run", "input": {"command": "rocminfo"}}],
    "stop_reason": "tool_use", "stop_sequence": null,
    "usage": {"input_tokens": 472, "output_tokens": 91, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1024}
  })",
                             "claude-sonnet-4-5");
  ASSERT_FALSE(d.problem);
  const auto& r = d.response;
  EXPECT_EQ(r.id, "msg_01Aq9w938a90dw8q");
  EXPECT_EQ(r.model, "claude-sonnet-4-5-20250929");
  ASSERT_EQ(r.content.size(), 2u) << "thinking blocks have no normalised form";
  EXPECT_EQ(r.content[0].text, "I'll check the GPU.");
  EXPECT_EQ(r.content[1].id, "toolu_01A09q90qw90lq917835lq9");
  EXPECT_EQ(r.content[1].arguments, json::parse(R"({"command": "rocminfo"})"));
  EXPECT_EQ(r.stop_reason, "tool_use");
  EXPECT_EQ(r.usage.input_tokens, 472);
  EXPECT_EQ(r.usage.output_tokens, 91);
  EXPECT_EQ(r.usage.cache_read_tokens, 1024);
  EXPECT_EQ(r.usage.cache_write_tokens, 0);
}

TEST(AnthropicWire, MapsStopReasons) {
  auto stop = [](const char* reason) {
    return wire
        .decode(std::string(R"({"id":"m","model":"x","content":[{"type":"text","text":"a"}],"stop_reason":")") +
                    reason + R"(","usage":{"input_tokens":1,"output_tokens":1}})",
                "x")
        .response.stop_reason;
  };
  EXPECT_EQ(stop("end_turn"), "end_turn");
  EXPECT_EQ(stop("max_tokens"), "max_tokens");
  EXPECT_EQ(stop("stop_sequence"), "stop_sequence");
  EXPECT_EQ(stop("model_context_window_exceeded"), "max_tokens");
  EXPECT_EQ(stop("pause_turn"), "other");
}

TEST(AnthropicWire, RefusalIsAProblemWithItsUsageKept) {
  const auto d = wire.decode(R"({"id":"m","model":"x","content":[],"stop_reason":"refusal",
                                 "usage":{"input_tokens":12,"output_tokens":3}})",
                             "x");
  ASSERT_TRUE(d.problem);
  EXPECT_EQ(*d.problem, failure::refusal);
  EXPECT_THAT(d.problem_detail, HasSubstr("the model refused to answer (stop_reason refusal)"));
  EXPECT_EQ(d.response.usage.input_tokens, 12);
}

TEST(AnthropicWire, WrongShapesAreMalformed) {
  for (const char* body : {R"({"id":"m","content":"text"})", R"({"id":"m","content":[{"type":"tool_use","id":"t"}]})",
                           R"({"id":"m","content":[{"type":"tool_use","id":"t","name":"n","input":"x"}]})",
                           R"({"type":"error","error":{"type":"api_error","message":"x"}})"}) {
    try {
      wire.decode(body, "x");
      ADD_FAILURE() << "accepted " << body;
    } catch (const llm_error& e) {
      EXPECT_EQ(e.kind(), failure::malformed_response) << body;
    }
  }
}

TEST(AnthropicWire, ClassifiesDocumentedErrors) {
  auto e = wire.classify(
      529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"})");
  EXPECT_EQ(e.kind, failure::overloaded);
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message, "overloaded_error: Overloaded (request_id req_1)");

  e = wire.classify(
      429,
      R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}})");
  EXPECT_EQ(e.kind, failure::rate_limited);
  EXPECT_TRUE(e.retryable);

  e = wire.classify(
      429,
      R"({"type":"error","error":{"type":"rate_limit_error","message":"spend cap","details":{"error_code":"enforced_spend_limit_reached"}}})");
  EXPECT_EQ(e.kind, failure::spend_limit);
  EXPECT_FALSE(e.retryable);

  e = wire.classify(
      400,
      R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}})");
  EXPECT_EQ(e.kind, failure::context_length);

  e = wire.classify(401, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})");
  EXPECT_EQ(e.kind, failure::auth);

  e = wire.classify(502, "<html>Bad Gateway</html>");
  EXPECT_EQ(e.kind, failure::server_error);
  EXPECT_EQ(e.message, "<html>Bad Gateway</html>");
}

}  // namespace
