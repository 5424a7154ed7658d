// SPDX-License-Identifier: MIT
// Conversation rules checked before sending, with the JSON pointer of the first broken one.
#include "request_checks.hpp"
#include "errors.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::llm;
using r2r::sdk::llm::complete_request;
using ::testing::HasSubstr;

complete_request parse(const char* text) {
  return nlohmann::json::parse(text).get<complete_request>();
}

std::string problem(const complete_request& r) {
  try {
    check_request(r);
  } catch (const llm_error& e) {
    EXPECT_EQ(e.status(), R2R_ERR_INVALID_ARGUMENT);
    return e.what();
  }
  return {};
}

constexpr const char* good = R"({
  "messages": [
    {"role": "user", "content": [{"type": "text", "text": "go"}]},
    {"role": "assistant", "content": [{"type": "tool_call", "id": "a", "name": "run", "arguments": {}},
                                      {"type": "tool_call", "id": "b", "name": "run", "arguments": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_call_id": "b", "content": "ok"},
                                 {"type": "tool_result", "tool_call_id": "a", "content": "no", "is_error": true}]}
  ],
  "tools": [{"name": "run", "parameters": {"type": "object"}}],
  "tool_choice": {"mode": "tool", "name": "run"}
})";

TEST(RequestChecks, AcceptsAnAnsweredToolRound) {
  EXPECT_EQ(problem(parse(good)), "");
}

TEST(RequestChecks, RejectsBrokenConversationsWithAPointer) {
  auto r = parse(good);
  r.messages[2].content.pop_back();
  EXPECT_THAT(problem(r), HasSubstr("/messages/2: the tool_call 'a' of /messages/1 has no tool_result here"));

  r = parse(good);
  r.messages[2].content[0].tool_call_id = "zzz";
  EXPECT_THAT(problem(r), HasSubstr("/messages/2/content/0: tool_result for tool_call_id 'zzz' answers no tool_call"));

  r = parse(good);
  std::swap(r.messages[0], r.messages[1]);
  EXPECT_THAT(problem(r), HasSubstr("/messages/0: the conversation must start with a user message"));

  r = parse(good);
  r.messages[1].content[1].id = "a";
  EXPECT_THAT(problem(r), HasSubstr("/messages/1/content/1: tool_call id 'a' is used twice"));

  r = parse(good);
  r.messages[0].content.push_back(r2r::sdk::llm::content_block::make_tool_call("x", "run", nlohmann::json::object()));
  EXPECT_THAT(problem(r),
              HasSubstr("/messages/0/content/1: a tool_call block may appear only in an assistant message"));

  r = parse(good);
  r.choice->name = "build";
  EXPECT_THAT(problem(r), HasSubstr("/tool_choice/name: tool_choice names tool 'build'"));

  r = parse(good);
  r.tools.push_back(r.tools.front());
  EXPECT_THAT(problem(r), HasSubstr("/tools/1: tool name 'run' is defined twice"));

  r = parse(good);
  r.tools.clear();
  r.choice->mode = "any";
  EXPECT_THAT(problem(r), HasSubstr("tool_choice 'any' requires tools"));
}

TEST(RequestChecks, TypedParsingGivesClearErrors) {
  EXPECT_THROW(parse(R"({"messages": [{"role": "system", "content": []}]})"), r2r::sdk::invalid_argument);
  EXPECT_THROW(parse(R"({"messages": [{"role": "user", "content": [{"type": "image"}]}]})"),
               r2r::sdk::invalid_argument);
  EXPECT_THROW(parse(R"({"system": "x"})"), r2r::sdk::invalid_argument);
  try {
    parse(R"({"messages": [{"role": "system", "content": []}]})");
    FAIL() << "a system message in messages was accepted";
  } catch (const r2r::sdk::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("the system prompt goes in the request's `system` field"));
  }
}

TEST(RequestChecks, RoundTripsThroughJsonExactly) {
  const auto j = nlohmann::json::parse(good);
  EXPECT_EQ(nlohmann::json(j.get<complete_request>()), j);
}

}  // namespace
