// SPDX-License-Identifier: MIT
// Secrets never survive redaction: literal values from the environment and common key formats, in
// plain text and inside JSON documents; short values are not treated as secrets.
#include "errors.hpp"
#include "secrets.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

using namespace r2r::plugins::llm;

TEST(Redaction, ReplacesEnvironmentValuesEverywhere) {
  ::setenv("R2R_TEST_REDACT_KEY", "k3y-value-that-is-long", 1);
  redactor r;
  r.add_env({"R2R_TEST_REDACT_KEY", "R2R_TEST_UNSET_VARIABLE"});
  EXPECT_EQ(r.apply("a k3y-value-that-is-long b k3y-value-that-is-long"), "a [REDACTED] b [REDACTED]");
  EXPECT_TRUE(r.contains_secret("xk3y-value-that-is-longx"));
  EXPECT_FALSE(r.contains_secret("nothing here"));
  ::unsetenv("R2R_TEST_REDACT_KEY");
}

TEST(Redaction, IgnoresShortLiteralsAndEmptyVariables) {
  redactor r;
  r.add_literal("abc");
  EXPECT_EQ(r.apply("abc abc"), "abc abc");
  EXPECT_FALSE(read_secret_env(""));
  ::setenv("R2R_TEST_EMPTY_KEY", "", 1);
  EXPECT_FALSE(read_secret_env("R2R_TEST_EMPTY_KEY"));
  ::unsetenv("R2R_TEST_EMPTY_KEY");
}

TEST(Redaction, DefaultPatternsCatchCommonKeyFormats) {
  redactor r;
  r.add_default_patterns();
  EXPECT_EQ(r.apply("key sk-ant-api03-AbCdEfGhIjKlMnOpQrSt_uv-1 end"), "key [REDACTED] end");
  EXPECT_EQ(r.apply("OPENAI=sk-proj-0123456789abcdefghijKLMN"), "OPENAI=[REDACTED]");
  EXPECT_EQ(r.apply("Authorization: Bearer abcdefghijklmnop1234"), "Authorization: [REDACTED]");
  EXPECT_EQ(r.apply("hf_abcdefghijklmnopqrstuvwx and ghp_abcdefghijklmnopqrstuvwx"), "[REDACTED] and [REDACTED]");
  EXPECT_EQ(r.apply("task-manager sk-short"), "task-manager sk-short");
}

TEST(Redaction, RedactsEveryStringOfAJsonDocumentButNotItsKeys) {
  redactor r;
  r.add_literal("super-secret-token-42");
  const nlohmann::json doc{{"super-secret-token-42", 1},
                           {"list", {"x super-secret-token-42", 5, nullptr}},
                           {"nested", {{"text", "super-secret-token-42"}}}};
  const auto out = r.apply_json(doc);
  EXPECT_EQ(out["list"][0], "x [REDACTED]");
  EXPECT_EQ(out["list"][1], 5);
  EXPECT_EQ(out["nested"]["text"], "[REDACTED]");
  EXPECT_TRUE(out.contains("super-secret-token-42"));
}

TEST(Redaction, InvalidPatternIsAConfigError) {
  redactor r;
  EXPECT_THROW(r.add_pattern("(unclosed"), r2r::sdk::invalid_argument);
}

TEST(Excerpt, CutsAtCharacterBoundariesAndReplacesInvalidBytes) {
  EXPECT_EQ(excerpt("short"), "short");
  const std::string text = "h\xC3\xA9llo";  // "héllo"
  EXPECT_EQ(excerpt(text, 2), "h... (6 bytes in all)");
  EXPECT_EQ(excerpt(text, 3), "h\xC3\xA9... (6 bytes in all)");
  EXPECT_EQ(excerpt("a\xFF\xC3", 10), "a??");
  // The result is always valid UTF-8: it serialises as JSON.
  EXPECT_NO_THROW(nlohmann::json(excerpt("\xC3\x28 bad \xE2\x82", 100)).dump());
}

TEST(Excerpt, ErrorMessagesAreAlwaysValidUtf8) {
  const llm_error e(failure::malformed_response, "server said \xFF\xFE");
  EXPECT_STREQ(e.what(), "malformed_response: server said ??");
  EXPECT_NO_THROW(nlohmann::json(std::string(e.what())).dump());
}

}  // namespace
