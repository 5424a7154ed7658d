// SPDX-License-Identifier: MIT
// The host side of r2r_host_api: service routing between pipeline instances, log levels and
// cancellation, with real libraries created through a pipeline session.
#include "test_support.hpp"

#include <r2r/core/pipeline_session.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace {

using ::testing::HasSubstr;

class HostApi : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = r2r::core::plugin_registry::load(
        {{r2r::test::fixture_dir("service_user"), "test"}, {r2r::test::fixture_dir("echo"), "test"}});
    ASSERT_TRUE(loaded.has_value()) << loaded.error().to_string();
    registry = std::move(*loaded);
  }
  std::unique_ptr<r2r::core::pipeline_session> session(const std::string& text) {
    auto parsed = r2r::core::parse_pipeline_text(text, "test.json");
    EXPECT_TRUE(parsed.config.has_value()) << (parsed.problems.empty() ? "" : parsed.problems.front().to_string());
    auto s = r2r::core::pipeline_session::create(*parsed.config, registry, cancel);
    EXPECT_TRUE(s.has_value()) << s.error().to_string();
    return s ? std::move(*s) : nullptr;
  }
  r2r::core::plugin_registry registry;
  std::shared_ptr<r2r::core::cancel_token> cancel = std::make_shared<r2r::core::cancel_token>();
};

constexpr const char* pipeline = R"({
  "version": 1,
  "instances": {"llm": {"use": "test.llm.echo", "config": {"prefix": "model says: "}}},
  "pipeline": [{"stage": "policy", "name": "agent", "use": "test.policy.service_user", "log_level": "error"}]
})";

TEST_F(HostApi, CallServiceReachesTheNamedInstance) {
  auto s = session(pipeline);
  ASSERT_TRUE(s);
  auto* agent = s->resolve("agent");
  ASSERT_NE(agent, nullptr);
  for (int i = 1; i <= 2; ++i) {
    auto r = agent->call("ask", {{"service", "llm"}, {"method", "echo"}, {"request", {{"prompt", "hello"}}}});
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    EXPECT_EQ((*r)["answer"]["text"], "model says: hello");
    EXPECT_EQ((*r)["answer"]["calls"], i) << "the same llm instance serves every call";
  }
}

TEST_F(HostApi, UnknownServiceIsAnActionableError) {
  auto s = session(pipeline);
  ASSERT_TRUE(s);
  auto r = s->resolve("agent")->call("ask", {{"service", "sandbox"}, {"method", "exec"}});
  ASSERT_FALSE(r.has_value());
  EXPECT_THAT(r.error().message, HasSubstr("unavailable"));
  EXPECT_THAT(r.error().message, HasSubstr("no pipeline instance named 'sandbox'"));
}

TEST_F(HostApi, ReentrantServiceCallFailsInsteadOfDeadlocking) {
  auto s = session(pipeline);
  ASSERT_TRUE(s);
  // agent -> llm.call_back -> agent.log_state: agent is busy in this thread.
  auto r = s->resolve("agent")->call(
      "ask",
      {{"service", "llm"}, {"method", "call_back"}, {"request", {{"service", "agent"}, {"method", "log_state"}}}});
  ASSERT_FALSE(r.has_value());
  EXPECT_THAT(r.error().message, HasSubstr("re-entrant call to instance 'agent'"));
}

TEST_F(HostApi, PerInstanceLogLevelReachesThePlugin) {
  auto s = session(pipeline);
  ASSERT_TRUE(s);
  auto r = s->resolve("agent")->call("log_state", nlohmann::json::object());
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ((*r)["info_enabled"], false) << "log_level error must hide info";
  EXPECT_EQ((*r)["error_enabled"], true);
}

TEST_F(HostApi, CancellationStopsALongCall) {
  auto s = session(pipeline);
  ASSERT_TRUE(s);
  std::thread canceller([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel->cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  auto r = s->resolve("agent")->call("wait_cancel", nlohmann::json::object());
  canceller.join();
  ASSERT_FALSE(r.has_value());
  EXPECT_THAT(r.error().message, HasSubstr("cancelled"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1500));
}

TEST_F(HostApi, KindMessagesAreValidatedOnTheWayIn) {
  auto loaded = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
  ASSERT_TRUE(loaded.has_value());
  auto instance = r2r::core::plugin_instance::create(*loaded->find("r2r.guard.cpu-fallback"), nlohmann::json::object());
  ASSERT_TRUE(instance.has_value());
  auto bad = (*instance)->call("check_action", {{"action", {{"type", "launch_rocket"}}}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_THAT(bad.error().message, HasSubstr("violates its schema"));
  EXPECT_THAT(bad.error().message, HasSubstr("/action/type"));
  auto good = (*instance)->call("check_action", {{"action", {{"type", "run"}, {"command", "python t.py --cpu"}}}});
  ASSERT_TRUE(good.has_value()) << good.error().to_string();
  EXPECT_EQ((*good)["decision"], "deny");
}

}  // namespace
