// SPDX-License-Identifier: MIT
// The SDK's catch-all barrier, through the real C ABI of a real library.
#include "test_support.hpp"

#include <r2r/core/plugin_loader.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

namespace {

using ::testing::HasSubstr;

class SdkBarrier : public ::testing::Test {
 protected:
  void SetUp() override {
    outcome = r2r::core::load_plugin_file(r2r::test::fixture("throws_everywhere"));
    ASSERT_EQ(outcome.plugins.size(), 1u);
    desc = outcome.plugins.front().descriptor;
  }
  r2r_status call(r2r_instance* inst, const std::string& method, const std::string& request) {
    r2r_str out{nullptr, 0};
    return desc->call(inst, {method.data(), method.size()}, {request.data(), request.size()}, nullptr, &out);
  }
  r2r::core::load_outcome outcome;
  const r2r_plugin_desc* desc = nullptr;
  r2r::sdk::testing::fake_host host;
};

TEST_F(SdkBarrier, ConstructorExceptionBecomesACreateError) {
  r2r_instance* inst = nullptr;
  const std::string config = R"({"throw_in_constructor": true})";
  EXPECT_EQ(desc->create(host.api(), {config.data(), config.size()}, &inst), R2R_ERR_INTERNAL);
  ASSERT_NE(inst, nullptr) << "the SDK hands back an instance so last_error can be read";
  EXPECT_THAT(desc->last_error(inst), HasSubstr("constructor exploded"));
  desc->destroy(inst);
}

TEST_F(SdkBarrier, MalformedOrMistypedConfigIsInvalidArgument) {
  for (const char* config : {"{ nope", R"({"throw_in_constructor": "yes"})"}) {
    r2r_instance* inst = nullptr;
    EXPECT_EQ(desc->create(host.api(), {config, std::strlen(config)}, &inst), R2R_ERR_INVALID_ARGUMENT) << config;
    ASSERT_NE(inst, nullptr);
    EXPECT_STRNE(desc->last_error(inst), "");
    desc->destroy(inst);
  }
}

TEST_F(SdkBarrier, EveryKindOfExceptionIsContained) {
  r2r_instance* inst = nullptr;
  ASSERT_EQ(desc->create(host.api(), {"{}", 2}, &inst), R2R_OK);
  const std::string action = R"({"action":{"type":"run"},"observation":{}})";

  EXPECT_EQ(call(inst, "check_action", action), R2R_ERR_INTERNAL);
  EXPECT_THAT(desc->last_error(inst), HasSubstr("check_action exploded"));

  EXPECT_EQ(call(inst, "observe", action), R2R_ERR_INTERNAL);
  EXPECT_THAT(desc->last_error(inst), HasSubstr("non-standard type"));

  EXPECT_EQ(call(inst, "bad_alloc", "{}"), R2R_ERR_INTERNAL);
  EXPECT_THAT(desc->last_error(inst), HasSubstr("out of memory"));

  EXPECT_EQ(call(inst, "sdk_error", "{}"), R2R_ERR_UNAVAILABLE);
  EXPECT_THAT(desc->last_error(inst), HasSubstr("rocprofv3 is not installed"));

  EXPECT_EQ(call(inst, "json_shape", "{}"), R2R_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(desc->last_error(inst), HasSubstr("wrong shape"));

  EXPECT_EQ(call(inst, "check_action", "{ truncated"), R2R_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(desc->last_error(inst), HasSubstr("malformed JSON"));

  EXPECT_EQ(call(inst, "no_such_method", "{}"), R2R_ERR_UNKNOWN_METHOD);
  EXPECT_THAT(desc->last_error(inst), HasSubstr("check_action, observe, bad_alloc, sdk_error, json_shape"));

  desc->destroy(inst);  // the destructor throws too; must not terminate
}

TEST_F(SdkBarrier, NullArgumentsAreRejectedNotDereferenced) {
  EXPECT_EQ(desc->create(host.api(), {"{}", 2}, nullptr), R2R_ERR_INVALID_ARGUMENT);
  r2r_str out{nullptr, 0};
  EXPECT_EQ(desc->call(nullptr, {"x", 1}, {"{}", 2}, nullptr, &out), R2R_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(desc->last_error(nullptr), "");
  desc->destroy(nullptr);
}

}  // namespace
