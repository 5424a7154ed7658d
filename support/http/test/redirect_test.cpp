// SPDX-License-Identifier: MIT
// Redirects, followed by the GET client one checked hop at a time: the scheme of each target, the
// redirect limit, and the origin headers (credentials) that never follow to another origin.
#include "server.hpp"

#include <r2r/support/http/get.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::support::http;
using namespace r2r::support::http::testing;
using ::testing::HasSubstr;

TEST(HttpRedirect, RedirectsAreFollowedAndRecorded) {
  loopback_server server;
  server.set_handler([](const recorded_request& req) {
    if (req.path == "/old") return redirect("/older", 301);
    if (req.path == "/older") return redirect("/paper.pdf", 307);
    return served("%PDF-1.4", "application/pdf");
  });
  const auto got = get_string(at(server.base_url("/old")));
  ASSERT_TRUE(got.answered()) << got.error;
  EXPECT_EQ(got.body, "%PDF-1.4");
  EXPECT_EQ(got.redirects, (std::vector<std::string>{server.base_url("/older"), server.base_url("/paper.pdf")}));
  EXPECT_EQ(got.final_url, server.base_url("/paper.pdf"));
}

TEST(HttpRedirect, ARedirectToAnotherSchemeIsRefusedAndNamed) {
  loopback_server server;
  server.enqueue(redirect("file:///etc/passwd"));
  const auto got = get_string(at(server.base_url("/to-file")));
  EXPECT_EQ(got.failure, get_failure::bad_scheme);
  EXPECT_THAT(got.error, HasSubstr("redirected to 'file:///etc/passwd', which is not http(s); refused"));
  EXPECT_TRUE(got.body.empty());
}

TEST(HttpRedirect, MoreThanTheLimitIsRefusedNamingTheLastTarget) {
  loopback_server server;
  server.set_handler([](const recorded_request& req) {
    const int n = std::stoi(req.path.substr(1));
    return n == 0 ? served("arrived") : redirect("/" + std::to_string(n - 1));
  });
  get_request request = at(server.base_url("/2"));
  request.max_redirects = 2;
  const auto two = get_string(request);
  ASSERT_TRUE(two.answered()) << two.error;
  EXPECT_EQ(two.redirects.size(), 2u);
  request.url = server.base_url("/3");
  const auto three = get_string(request);
  EXPECT_EQ(three.failure, get_failure::too_many_redirects);
  EXPECT_THAT(three.error, HasSubstr("more than 2 redirects (the last to '" + server.base_url("/0") + "')"));
  EXPECT_THAT(three.error, HasSubstr(" at '" + server.base_url("/1") + "'"));  // where it stopped
}

TEST(HttpRedirect, ARedirectWithoutALocationIsAFailure) {
  loopback_server server;
  server.enqueue(served("nowhere", "text/plain", 302));
  const auto got = get_string(at(server.base_url("/x")));
  EXPECT_EQ(got.failure, get_failure::no_location);
  EXPECT_THAT(got.error, HasSubstr("HTTP 302 (redirect) without a Location to follow"));
}

// A Hub answers a resolve with a redirect to a CDN: the token goes to the Hub, never to the CDN.
TEST(HttpRedirect, OriginHeadersFollowRedirectsWithinTheOriginOnlyNeverToAnotherHost) {
  loopback_server hub, cdn;  // two origins: same host, other port
  hub.set_handler([&cdn](const recorded_request& req) {
    if (req.path == "/resolve") return redirect("/resolve/abc123");  // same origin
    return redirect(cdn.base_url("/blob?signed=1"));
  });
  cdn.enqueue(served("blob bytes"));
  get_request request = at(hub.base_url("/resolve"));
  request.origin_headers = {{"Authorization", "Bearer hf_secret"}, {"X-Api-Key", "k-secret"}};
  const auto got = get_string(request);
  ASSERT_TRUE(got.answered()) << got.error;
  EXPECT_EQ(got.body, "blob bytes");
  const auto asked = hub.requests();
  ASSERT_EQ(asked.size(), 2u);
  for (const auto& r : asked) {
    EXPECT_EQ(r.header("authorization"), "Bearer hf_secret") << r.path;
    EXPECT_EQ(r.header("x-api-key"), "k-secret") << r.path;
  }
  ASSERT_EQ(cdn.request_count(), 1u);
  const auto landed = cdn.requests().front();
  EXPECT_EQ(landed.header("authorization"), "");
  EXPECT_EQ(landed.header("x-api-key"), "");
  for (const auto& [name, value] : landed.headers) EXPECT_THAT(value, ::testing::Not(HasSubstr("secret"))) << name;
}

TEST(HttpRedirect, OriginHeadersAreDroppedForTheSameServerUnderAnotherHostName) {
  loopback_server server;
  const std::string other = "http://localhost:" + std::to_string(server.port()) + "/landing";
  server.set_handler(
      [&other](const recorded_request& req) { return req.path == "/start" ? redirect(other) : served("landed"); });
  get_request request = at(server.base_url("/start"));
  request.origin_headers = {{"Authorization", "Bearer hf_secret"}};
  const auto got = get_string(request);
  if (got.failure == get_failure::resolve || got.failure == get_failure::connect)
    GTEST_SKIP() << "localhost is not 127.0.0.1 here: " << got.error;
  ASSERT_TRUE(got.answered()) << got.error;
  const auto asked = server.requests();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].header("authorization"), "Bearer hf_secret");
  EXPECT_EQ(asked[1].header("authorization"), "");
}

}  // namespace
