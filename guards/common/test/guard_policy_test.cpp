// SPDX-License-Identifier: MIT
#include <r2r/guards/guard_policy.hpp>

#include <r2r/sdk/error.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace {

namespace policy = r2r::plugins::guard::policy;
using ::testing::HasSubstr;

const char* const id = "r2r.guard.example";

nlohmann::json doc(nlohmann::json components) {
  return {{"guard", id}, {"components", std::move(components)}};
}

std::string error_of(const nlohmann::json& d) {
  try {
    policy::parse(d, id, "inline");
  } catch (const r2r::sdk::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(GuardPolicy, ModesOverrideTheDefault) {
  const auto p = policy::parse(
      doc({{"epochs", {{"level", "D5"}, {"default", "deny"}, {"mode1", "record"}, {"require_reason", false}}}}), id,
      "inline");
  const auto* r = p.find("epochs");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->in_mode(1), policy::outcome::record);
  EXPECT_EQ(r->in_mode(2), policy::outcome::deny);
  EXPECT_EQ(r->in_mode(0), policy::outcome::deny);
  EXPECT_EQ(p.find("steps"), nullptr);
}

TEST(GuardPolicy, WildcardAppliesToUnlistedComponents) {
  const auto p = policy::parse(doc({{"*", {{"level", "D2"}, {"default", "record"}}}}), id, "inline");
  ASSERT_NE(p.find("anything"), nullptr);
  EXPECT_EQ(p.find("anything")->level, "D2");
  EXPECT_TRUE(p.find("anything")->require_reason);
}

TEST(GuardPolicy, ErrorsNameThePointerExpectedAndFound) {
  EXPECT_THAT(error_of(doc({{"x", {{"level", "D9"}, {"default", "deny"}}}})), HasSubstr("/components/x/level"));
  EXPECT_THAT(error_of(doc({{"x", {{"level", "D1"}}}})), HasSubstr("/components/x/default"));
  EXPECT_THAT(error_of(doc({{"x", {{"level", "D1"}, {"default", "deny"}, {"mode3", "deny"}}}})),
              HasSubstr("/components/x/mode3: expected no such key"));
  EXPECT_THAT(error_of(doc({{"x", {{"level", "D1"}, {"default", "deny"}, {"require_reason", "yes"}}}})),
              HasSubstr("found \"yes\""));
  EXPECT_THAT(error_of(doc({{"Bad Name", {{"level", "D1"}, {"default", "deny"}}}})), HasSubstr("/components/Bad Name"));
  EXPECT_THAT(error_of({{"guard", "r2r.guard.other"}, {"components", nlohmann::json::object()}}),
              HasSubstr("/guard: expected \"r2r.guard.example\""));
  EXPECT_THAT(error_of({{"guard", id}}), HasSubstr("/components"));
  EXPECT_THAT(error_of({{"guard", id}, {"components", {}}, {"extra", 1}}), HasSubstr("/extra"));
  EXPECT_THAT(error_of(nlohmann::json::array()), HasSubstr("config /policy: expected a policy object"));
}

TEST(GuardPolicy, SelectReadsBuiltinInlineOrFile) {
  const std::string builtin =
      R"({"guard": "r2r.guard.example", "components": {"a": {"level": "D1", "default": "record"}}})";
  EXPECT_EQ(policy::select(nullptr, builtin, id).origin, "built-in");
  EXPECT_EQ(policy::select(doc(nlohmann::json::object()), builtin, id).origin, "inline");
  const std::string path = ::testing::TempDir() + "guard_policy_test.json";
  std::ofstream(path) << builtin;
  const auto from_file = policy::select(path, builtin, id);
  EXPECT_EQ(from_file.origin, path);
  EXPECT_NE(from_file.find("a"), nullptr);
  std::ofstream(path) << "{not json";
  EXPECT_THROW(policy::select(path, builtin, id), r2r::sdk::invalid_argument);
  std::remove(path.c_str());
  EXPECT_THROW(policy::select(path, builtin, id), r2r::sdk::invalid_argument);
  EXPECT_THROW(policy::select(42, builtin, id), r2r::sdk::invalid_argument);
}

TEST(GuardPolicy, DecideRecordsDeniesOrAsksForAReason) {
  const auto p = policy::parse(doc({{"port", {{"level", "D1"}, {"default", "record"}, {"note", "hipify"}}},
                                    {"stub", {{"level", "D4"}, {"default", "deny"}}},
                                    {"scale", {{"level", "D5"}, {"default", "record"}, {"require_reason", false}}}}),
                               id, "inline");
  const policy::finding port{"port", "csrc/k.cu", "renames cuda to hip"};
  const auto no_reason = policy::decide(p, port, 1, " ");
  EXPECT_EQ(no_reason.verdict, "deny");
  EXPECT_THAT(no_reason.unlock, HasSubstr("reason"));
  const auto ok = policy::decide(p, port, 2, "hipify keeps the kernels");
  EXPECT_EQ(ok.verdict, "allow");
  ASSERT_EQ(ok.ledger.size(), 1u);
  EXPECT_EQ(ok.ledger[0].component, "csrc/k.cu");
  EXPECT_EQ(ok.ledger[0].level, "D1");
  EXPECT_THAT(ok.ledger[0].note, HasSubstr("hipify keeps the kernels"));
  const auto denied = policy::decide(p, {"stub", "", "stubs f()"}, 1, "needed");
  EXPECT_EQ(denied.verdict, "deny");
  EXPECT_THAT(denied.unlock, HasSubstr("components.stub.mode1"));
  EXPECT_EQ(policy::decide(p, {"unknown", "", "x"}, 1, "r").verdict, "deny");
  const auto scale = policy::decide(p, {"scale", "", "fewer epochs"}, 1, "");
  EXPECT_EQ(scale.verdict, "allow");
  EXPECT_EQ(scale.ledger.at(0).component, "scale");
}

}  // namespace
