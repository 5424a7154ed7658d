// SPDX-License-Identifier: MIT
// r2r-plugin-conformance on the plugins whose example configs point at nothing (no engine, no
// server, no service), pointed here at real loopback dependencies with --set and --service:
// bubblewrap for r2r.sandbox.local, a private dockerd for r2r.sandbox.docker, cpp-httplib servers
// speaking the Anthropic and OpenAI APIs for the HTTP llm backends, and such a server behind
// --service llm for the agentic converter and the llm policy. Every one of them runs with
// --require-available, so a plugin that could not be exercised fails instead of passing. In CI
// (CI set) the sandboxes are expected available and a missing engine fails; elsewhere a missing
// bubblewrap or dockerd is a visible skip. The runner's own skip/fail reporting is checked too.
#include "../run/private_dockerd.hpp"
#include "../unit/test_support.hpp"
#include "loopback_server.hpp"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace {

using nlohmann::json;
using r2r::plugins::llm::testkit::loopback_server;
using r2r::plugins::llm::testkit::recorded_request;
using r2r::plugins::llm::testkit::scripted_response;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) != "" && std::string(ci) != "0" && std::string(ci) != "false";
}

std::string lib(const std::string& name) {
  return (r2r::test::plugin_dir() / ("libr2r-" + name + ".so")).string();
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs the conformance runner (few create/destroy iterations: the dependencies are real).
r2r::test::process_result conformance(const std::string& args, const std::string& env = "") {
  auto r = r2r::test::run_process(env + " " + quote(R2R_CONFORMANCE_RUNNER) + " " + args + " --iterations 3");
  r.out += r.err;  // the usage errors are on stderr; the checks' notes on stdout
  return r;
}

void expect_exercised(const r2r::test::process_result& r) {
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, Not(HasSubstr("[  SKIPPED ]"))) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[  PASSED  ]")) << r.out;
}

/// An Anthropic Messages reply: a give_up tool call when the request offers tools, else text.
scripted_response anthropic_reply(const recorded_request& req) {
  const json body = req.json();
  json content = json::array({{{"type", "text"}, {"text", "conformance reply"}}});
  std::string stop = "end_turn";
  if (body.contains("tools")) {
    for (const auto& t : body["tools"]) {
      if (t.at("name") == "give_up") {
        content = json::array({{{"type", "tool_use"},
                                {"id", "toolu_conformance"},
                                {"name", "give_up"},
                                {"input", {{"reason", "conformance run: no progress possible"}}}}});
        stop = "tool_use";
      }
    }
  }
  return scripted_response::json(200, {{"id", "msg_conformance"},
                                       {"type", "message"},
                                       {"role", "assistant"},
                                       {"model", "claude-sonnet-4-5"},
                                       {"content", content},
                                       {"stop_reason", stop},
                                       {"usage", {{"input_tokens", 20}, {"output_tokens", 5}}}});
}

scripted_response openai_reply(const recorded_request&) {
  return scripted_response::json(
      200, json::parse(R"({"id": "chatcmpl-conformance", "object": "chat.completion", "created": 1741569952,
        "model": "Qwen/Qwen2.5-Coder-32B-Instruct",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "conformance reply"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 2, "total_tokens": 22}})"));
}

class ConformanceServices : public ::testing::Test {
 protected:
  /// A config for the Anthropic backend that talks to `server`.
  fs::path anthropic_config(const loopback_server& server) {
    return tmp.write("anthropic.json", json{{"base_url", server.base_url()},
                                            {"model", "claude-sonnet-4-5"},
                                            {"api_key_env", "R2R_CONFORMANCE_KEY"},
                                            {"retry", {{"max_retries", 0}}}}
                                           .dump());
  }
  r2r::test::temp_dir tmp;
};

TEST_F(ConformanceServices, AnUnavailablePluginIsSkippedWithItsReasonOrFailsWhenRequired) {
  // The docker sandbox's example config points at a socket that does not exist.
  auto r = conformance("--plugin " + quote(lib("sandbox-docker")));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[  SKIPPED ] r2r.sandbox.docker.KindContract")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("unavailable here: ")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("/run/r2r-example/no-engine-here.sock")) << "the plugin's own reason: " << r.out;
  r = conformance("--plugin " + quote(lib("sandbox-docker")) + " --require-available");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("unavailable here, but --require-available was given")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[  FAILED  ] r2r.sandbox.docker.KindContract")) << r.out;
}

TEST_F(ConformanceServices, BadOptionsAreUsageErrors) {
  auto r = conformance("--plugin " + quote(lib("sandbox-local")) + " --set '[1]'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--set expects a JSON object"));
  r = conformance("--plugin " + quote(lib("converter-agentic")) + " --service llm");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--service expects NAME=LIBRARY.so[:CONFIG.json]"));
  r = conformance("--plugin " + quote(lib("converter-agentic")) + " --service llm=/nonexistent/libx.so");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("/nonexistent/libx.so does not exist"));
}

TEST_F(ConformanceServices, LocalSandboxWithBubblewrap) {
  const bool bwrap_works = r2r::test::run_process("bwrap --ro-bind / / --dev /dev --proc /proc true").exit_code == 0;
  if (!bwrap_works && !in_ci()) GTEST_SKIP() << "bubblewrap cannot create a sandbox on this host";
  const auto r = conformance("--plugin " + quote(lib("sandbox-local")) + " --set " +
                             quote(json{{"bwrap", "/usr/bin/bwrap"}}.dump()) + " --require-available");
  expect_exercised(r);
  EXPECT_THAT(r.out, Not(HasSubstr("not run: no sandbox is open"))) << r.out;
}

TEST_F(ConformanceServices, DockerSandboxWithAPrivateDockerd) {
  r2r::test::private_dockerd engine(tmp.path() / "dockerd");
  if (!engine.ready()) {
    if (in_ci()) FAIL() << "CI expects a container engine here; dockerd did not start:\n" << engine.log();
    GTEST_SKIP() << "dockerd did not start here:\n" << engine.log();
  }
  engine.import_base("local/busybox", {});
  const auto r = conformance("--plugin " + quote(lib("sandbox-docker")) + " --set " +
                             quote(json{{"socket", engine.socket()}}.dump()) + " --require-available");
  expect_exercised(r);
  EXPECT_THAT(r.out, Not(HasSubstr("not run: no sandbox is open"))) << r.out;
  // Everything the run created is gone again.
  EXPECT_EQ(engine.docker("ps -aq").out, "") << "containers left behind";
}

TEST_F(ConformanceServices, AnthropicBackendAgainstALoopbackServer) {
  loopback_server server;
  server.set_handler(anthropic_reply);
  const auto r = conformance("--plugin " + quote(lib("llm-anthropic")) + " --set " +
                                 quote(json{{"base_url", server.base_url()}}.dump()) + " --require-available",
                             "ANTHROPIC_API_KEY=conformance-key");
  expect_exercised(r);
  EXPECT_GE(server.request_count(), 3u) << "every complete example reached the server";
  for (const auto& q : server.requests()) EXPECT_EQ(q.header("x-api-key"), "conformance-key");
}

TEST_F(ConformanceServices, OpenAiBackendAgainstALoopbackServer) {
  loopback_server server;
  server.set_handler(openai_reply);
  const auto r = conformance("--plugin " + quote(lib("llm-openai")) + " --set " +
                             quote(json{{"base_url", server.base_url("/v1")}}.dump()) + " --require-available");
  expect_exercised(r);
  EXPECT_GE(server.request_count(), 3u) << "every complete example reached the server";
}

TEST_F(ConformanceServices, AgenticConverterWithAnLlmService) {
  loopback_server server;
  server.set_handler(anthropic_reply);
  const auto r = conformance("--plugin " + quote(lib("converter-agentic")) + " --service " +
                                 quote("llm=" + lib("llm-anthropic") + ":" + anthropic_config(server).string()) +
                                 " --require-available",
                             "R2R_CONFORMANCE_KEY=conformance-key");
  expect_exercised(r);
  EXPECT_GE(server.request_count(), 1u) << "the converter's examples reached the llm service:\n" << r.out;
}

TEST_F(ConformanceServices, LlmPolicyWithAnLlmService) {
  loopback_server server;
  server.set_handler(anthropic_reply);
  const auto r = conformance("--plugin " + quote(lib("policy-llm")) + " --service " +
                                 quote("llm=" + lib("llm-anthropic") + ":" + anthropic_config(server).string()) +
                                 " --require-available",
                             "R2R_CONFORMANCE_KEY=conformance-key");
  expect_exercised(r);
  EXPECT_GE(server.request_count(), 1u) << "the policy's examples reached the llm service:\n" << r.out;
}

TEST_F(ConformanceServices, ExternalHipifyIsSkippedWithItsReasonWhereTheToolIsMissing) {
  if (r2r::test::run_process("command -v hipify-perl || command -v hipify-clang").exit_code == 0) {
    const auto r = conformance("--plugin " + quote(lib("converter-hipify-external")) + " --require-available");
    expect_exercised(r);
    return;
  }
  // Not packaged for Debian 12: the runner must say skipped, with the plugin's reason.
  const auto r = conformance("--plugin " + quote(lib("converter-hipify-external")));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[  SKIPPED ]")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("hipify-perl or hipify-clang was not found")) << r.out;
}

}  // namespace
