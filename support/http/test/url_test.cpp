// SPDX-License-Identifier: MIT
#include <r2r/support/http/origin.hpp>
#include <r2r/support/http/url.hpp>

#include <gtest/gtest.h>

namespace {

using namespace r2r::support::http;

TEST(HttpUrl, RedactionRemovesOnlyTheUserInfo) {
  EXPECT_EQ(redact_url("https://u:p@h.org/a@b?x=@"), "https://***@h.org/a@b?x=@");
  EXPECT_EQ(redact_url("https://token@h.org"), "https://***@h.org");
  EXPECT_EQ(redact_url("https://h.org/p@x"), "https://h.org/p@x");
  EXPECT_EQ(redact_url("not a url"), "not a url");
}

TEST(HttpUrl, TheSchemeIsReadInAnyCase) {
  EXPECT_EQ(scheme_of("HTTPS://h.org/x"), "https");
  EXPECT_EQ(scheme_of("h.org/x"), "");
  EXPECT_TRUE(is_http_url("Http://h.org"));
  EXPECT_FALSE(is_http_url("ftp://h.org"));
  EXPECT_FALSE(is_http_url("file:///etc/passwd"));
}

TEST(HttpUrl, TheOriginIsSchemeHostAndPortWithDefaultPortsFilledIn) {
  EXPECT_TRUE(same_origin("https://huggingface.co/a", "https://HuggingFace.co:443/b?c"));
  EXPECT_TRUE(same_origin("http://127.0.0.1:8080/x", "http://127.0.0.1:8080/y"));
  EXPECT_TRUE(same_origin("http://u:p@h.org/x", "http://h.org/y"));
  EXPECT_FALSE(same_origin("http://127.0.0.1:8080/x", "http://127.0.0.1:8081/x"));
  EXPECT_FALSE(same_origin("https://h.org/x", "http://h.org/x"));
  EXPECT_FALSE(same_origin("https://huggingface.co/x", "https://cdn-lfs.huggingface.co/x"));
  EXPECT_FALSE(same_origin("https://h.org.evil.com/x", "https://h.org/x"));
  EXPECT_FALSE(same_origin("not a url", "not a url"));
}

}  // namespace
