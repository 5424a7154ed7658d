// SPDX-License-Identifier: MIT
// The GET client's answers, body sinks, cap, timeouts and transport failures, against a real HTTP
// server on 127.0.0.1.
#include "server.hpp"

#include <r2r/support/http/get.hpp>
#include <test_helpers.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using namespace r2r::support::http;
using namespace r2r::support::http::testing;
using ::testing::HasSubstr;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("r2r-http-" + std::to_string(getpid()) + "-" + name);
}

TEST(HttpGet, AnyStatusIsAnAnswerWithItsBodyAndContentType) {
  loopback_server server;
  server.enqueue(served("{\"ok\":true}", "application/json"));
  server.enqueue(served("no such thing", "text/plain", 404));
  const auto ok = get_string(at(server.base_url("/a")));
  ASSERT_TRUE(ok.answered()) << ok.error;
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "{\"ok\":true}");
  EXPECT_EQ(ok.bytes, ok.body.size());
  EXPECT_EQ(ok.content_type, "application/json");
  EXPECT_EQ(ok.final_url, server.base_url("/a"));
  const auto missing = get_string(at(server.base_url("/b")));
  ASSERT_TRUE(missing.answered()) << missing.error;
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, "no such thing");
  EXPECT_EQ(status_text(404), "HTTP 404 (Not Found)");
  EXPECT_EQ(status_text(599), "HTTP 599 (server error)");
  EXPECT_EQ(server.requests().front().method, "GET");
  EXPECT_EQ(server.requests().front().header("user-agent"), "repo2rocm");
}

TEST(HttpGet, TheFileSinkHoldsTheFinalBodyOnlyNotTheRedirects) {
  loopback_server server;
  server.enqueue(redirect("/there"));
  server.enqueue(served("the model's bytes"));
  const fs::path file = temp_file("sink");
  const auto got = get_file(at(server.base_url("/here")), file);
  ASSERT_TRUE(got.answered()) << got.error;
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(read_file(file), "the model's bytes");
  EXPECT_EQ(got.bytes, 17u);
  EXPECT_TRUE(got.body.empty());
  fs::remove(file);
}

TEST(HttpGet, TheCapStopsTheStreamInEitherSinkAndAContentLengthAboveItBeforeTheBody) {
  loopback_server server;
  get_request request = at(server.base_url("/big"));
  request.max_bytes = 1u << 20;
  const fs::path file = temp_file("cap");
  for (int i = 0; i < 4; ++i) {
    scripted_response big = served(std::string(4u << 20, 'a'));
    big.chunked = i % 2 == 0;  // no Content-Length: only the stream can tell
    server.enqueue(big);
    const auto got = i < 2 ? get_string(request) : get_file(request, file);
    ASSERT_FALSE(got.answered()) << i;
    EXPECT_EQ(got.failure, get_failure::too_large) << i;
    EXPECT_THAT(got.error, HasSubstr("grew past 1 MiB (1048576 bytes)")) << i;
    EXPECT_EQ(got.status, 0) << i;
    if (i >= 2) {
      EXPECT_LE(fs::file_size(file), 1u << 20) << i;
    }
  }
  // At the cap exactly, the body comes through.
  server.enqueue(served(std::string(1u << 20, 'a')));
  const auto fits = get_string(request);
  ASSERT_TRUE(fits.answered()) << fits.error;
  EXPECT_EQ(fits.body.size(), 1u << 20);
  fs::remove(file);
}

TEST(HttpGet, AFileThatCannotBeCreatedIsAWriteFailureNamingIt) {
  loopback_server server;
  const auto got = get_file(at(server.base_url("/x")), "/nonexistent-dir-r2r/x.bin");
  EXPECT_EQ(got.failure, get_failure::write_failed);
  EXPECT_THAT(got.error, HasSubstr("cannot create /nonexistent-dir-r2r/x.bin"));
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(HttpGet, ANonHttpUrlIsRefusedBeforeAnyRequest) {
  const auto got = get_string(at("file:///etc/passwd"));
  EXPECT_EQ(got.failure, get_failure::bad_scheme);
  EXPECT_THAT(got.error, HasSubstr("'file:///etc/passwd' is not an http:// or https:// URL"));
}

TEST(HttpGet, AConnectionFailureSaysWhatToDoWithTheCallersWayOutAndNoCredentials) {
  int dead_port = 0;
  {
    loopback_server gone;
    dead_port = gone.port();
  }
  get_request request = at("http://alice:s3cr3t@127.0.0.1:" + std::to_string(dead_port) + "/p.pdf");
  request.more_advice = "or download the paper and pass its path";
  const auto got = get_string(request);
  EXPECT_EQ(got.failure, get_failure::connect);
  EXPECT_THAT(got.error, HasSubstr("cannot connect to the server (refused or unreachable); check the URL, the "
                                   "network and the proxy variables, or download the paper and pass its path"));
  EXPECT_THAT(got.error, ::testing::Not(HasSubstr("s3cr3t")));
  EXPECT_EQ(got.final_url, "http://***@127.0.0.1:" + std::to_string(dead_port) + "/p.pdf");
}

TEST(HttpGet, TheTotalTimeoutEndsASlowAnswer) {
  loopback_server server;
  scripted_response slow = served("late");
  slow.delay = std::chrono::milliseconds(3000);
  server.enqueue(slow);
  get_request request = at(server.base_url("/slow"));
  request.total_timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const auto got = get_string(request);
  EXPECT_EQ(got.failure, get_failure::timeout) << got.error;
  EXPECT_THAT(got.error, HasSubstr("timed out"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2500));
}

TEST(HttpGet, ATlsFailureIsNamedAsOne) {
  loopback_server server;  // speaks plain HTTP, so a TLS handshake with it fails
  const auto got = get_string(at("https://127.0.0.1:" + std::to_string(server.port()) + "/p.pdf"));
  EXPECT_EQ(got.failure, get_failure::tls) << got.error;
  EXPECT_THAT(got.error, HasSubstr("TLS error"));
}

TEST(HttpGet, TheProxyVariablesAreHonoured) {
  loopback_server proxy;  // answers as an HTTP proxy would: the request line names the target
  proxy.enqueue(served("through the proxy"));
  r2r::plugins::llm::testkit::scoped_env http_proxy("http_proxy", proxy.base_url());
  r2r::plugins::llm::testkit::scoped_env no_proxy("no_proxy", "");
  r2r::plugins::llm::testkit::scoped_env upper_no_proxy("NO_PROXY", "");
  const auto got = get_string(at("http://papers.example.invalid/p.pdf"));
  ASSERT_TRUE(got.answered()) << got.error;
  EXPECT_EQ(got.body, "through the proxy");
  ASSERT_EQ(proxy.request_count(), 1u);
  EXPECT_EQ(proxy.requests().front().header("host"), "papers.example.invalid");
}

}  // namespace
