// SPDX-License-Identifier: MIT
// The provider-independent parts of reading a response: statuses, context-overflow wording,
// truncated or malformed bodies, and field checks that name a JSON pointer.
#include "wire_format.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::llm;
using ::testing::HasSubstr;

std::string malformed(std::string_view body) {
  try {
    parse_body(body, "test");
  } catch (const llm_error& e) {
    EXPECT_EQ(e.kind(), failure::malformed_response);
    return e.what();
  }
  return {};
}

TEST(WireFormat, StatusesMapToFailures) {
  EXPECT_EQ(failure_for_status(401), failure::auth);
  EXPECT_EQ(failure_for_status(403), failure::permission);
  EXPECT_EQ(failure_for_status(404), failure::not_found);
  EXPECT_EQ(failure_for_status(413), failure::request_too_large);
  EXPECT_EQ(failure_for_status(429), failure::rate_limited);
  EXPECT_EQ(failure_for_status(529), failure::overloaded);
  EXPECT_EQ(failure_for_status(503), failure::server_error);
  EXPECT_EQ(failure_for_status(422), failure::bad_request);
  EXPECT_EQ(status_of(failure::auth), R2R_ERR_FAILED);
  EXPECT_EQ(status_of(failure::connect), R2R_ERR_UNAVAILABLE);
  EXPECT_EQ(status_of(failure::invalid_request), R2R_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(status_of(failure::cancelled), R2R_ERR_CANCELLED);
}

TEST(WireFormat, RecognisesEachServersContextOverflowWording) {
  for (const char* m : {"prompt is too long: 208310 tokens > 200000 maximum",
                        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000",
                        "the request exceeds the available context size, try increasing it",
                        "input length and `max_tokens` exceed context limit: 199000 + 4096 > 200000",
                        "Please reduce the length of the messages or completion."}) {
    EXPECT_TRUE(says_context_overflow(m)) << m;
  }
  EXPECT_FALSE(says_context_overflow("model not found"));
}

TEST(WireFormat, TruncatedBodiesAreSaidToBeTruncated) {
  const std::string full = R"({"id": "x", "content": [{"type": "text", "text": "hello"}]})";
  const std::string m = malformed(full.substr(0, 30));
  EXPECT_THAT(m, HasSubstr("malformed_response: the test server answered with a success status"));
  EXPECT_THAT(m, HasSubstr("it ends after 30 bytes in the middle of a value (truncated)"));
  EXPECT_THAT(m, HasSubstr("not retried"));
  EXPECT_THAT(malformed("<html>bad gateway</html>"), HasSubstr("not valid JSON"));
  EXPECT_THAT(malformed("[1, 2]"), HasSubstr("a JSON array where an object was expected"));
  EXPECT_THAT(malformed(""), HasSubstr("truncated"));
}

TEST(WireFormat, FieldChecksNameThePointer) {
  const auto doc = nlohmann::json::parse(R"({"usage": {"input_tokens": -1, "output_tokens": 3}, "content": "x"})");
  EXPECT_EQ(token_count(doc["usage"], "output_tokens", "/usage", "test"), 3);
  EXPECT_EQ(token_count(doc["usage"], "cache_read_input_tokens", "/usage", "test"), 0);
  try {
    token_count(doc["usage"], "input_tokens", "/usage", "test");
    ADD_FAILURE() << "negative count accepted";
  } catch (const llm_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/usage/input_tokens = -1; expected a non-negative integer"));
  }
  try {
    required_field(doc, "content", nlohmann::json::value_t::array, "", "test");
    ADD_FAILURE() << "string accepted as array";
  } catch (const llm_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/content as string; expected an array"));
  }
  EXPECT_THROW(required_field(doc, "choices", nlohmann::json::value_t::array, "", "test"), llm_error);
}

}  // namespace
