// SPDX-License-Identifier: MIT
#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/json_schema.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using ::testing::HasSubstr;

TEST(JsonSchema, ReportsEveryViolationWithPointerExpectedAndFound) {
  auto schema = r2r::core::json_schema::compile_text(R"({
    "type": "object", "additionalProperties": false,
    "properties": {
      "max": {"type": "integer", "minimum": 1},
      "names": {"type": "array", "items": {"type": "string"}},
      "nested": {"type": "object", "properties": {"mode": {"enum": ["a", "b"]}}}
    }})",
                                                     "test");
  ASSERT_TRUE(schema.has_value()) << schema.error().to_string();
  const auto v = schema->validate(
      nlohmann::json::parse(R"({"max": "big", "names": ["x", 3], "nested": {"mode": "c"}, "oops": 1})"));
  std::vector<std::string> pointers;
  for (const auto& x : v) pointers.push_back(x.pointer);
  EXPECT_THAT(pointers, ::testing::IsSupersetOf({"/max", "/names/1", "/nested/mode", ""}));
  for (const auto& x : v) {
    if (x.pointer == "/max") {
      EXPECT_THAT(x.expected, HasSubstr("\"type\":\"integer\""));
      EXPECT_EQ(x.found, "string \"big\"");
      EXPECT_THAT(r2r::core::format_violation(x, "/config"), HasSubstr("/config/max: "));
    }
    if (x.pointer.empty()) {
      EXPECT_THAT(x.message, HasSubstr("oops"));
    }
    EXPECT_THAT(x.message, ::testing::Not(HasSubstr("Failed to validate")));
  }
  EXPECT_TRUE(schema->validate(nlohmann::json::parse(R"({"max": 3, "names": ["a"]})")).empty());
}

TEST(JsonSchema, EscapesPointerTokens) {
  auto schema = r2r::core::json_schema::compile_text(
      R"({"type":"object","properties":{"a/b":{"type":"integer"},"c~d":{"type":"integer"}}})", "t");
  ASSERT_TRUE(schema.has_value());
  const auto v = schema->validate(nlohmann::json::parse(R"({"a/b": "x", "c~d": "y"})"));
  std::vector<std::string> pointers;
  for (const auto& x : v) pointers.push_back(x.pointer);
  EXPECT_THAT(pointers, ::testing::UnorderedElementsAre("/a~1b", "/c~0d"));
}

TEST(JsonSchema, InvalidSchemasAreRejected) {
  EXPECT_FALSE(r2r::core::json_schema::compile_text("{ not json", "t").has_value());
  EXPECT_FALSE(r2r::core::json_schema::compile_text(R"({"type": 12})", "t").has_value());
  EXPECT_FALSE(r2r::core::json_schema::compile_text(R"([1, 2])", "t").has_value());
}

TEST(EmbeddedSchemas, EveryEmbeddedSchemaCompilesAndItsExamplesValidate) {
  const auto names = r2r::core::embedded_schema_names();
  EXPECT_THAT(names, ::testing::Contains("pipeline.schema.json"));
  EXPECT_THAT(names, ::testing::Contains("guard/check_action.request.schema.json"));
  for (const auto& name : names) {
    const auto* schema = r2r::core::embedded_schema(name);
    ASSERT_NE(schema, nullptr) << name << " does not compile";
    for (const auto& example : schema->document().value("examples", nlohmann::json::array())) {
      EXPECT_TRUE(schema->validate(example).empty()) << name << ": " << example.dump();
    }
  }
  EXPECT_EQ(r2r::core::kind_methods("guard"), (std::vector<std::string>{"check_action", "observe"}));
}

TEST(EmbeddedSchemas, GuardDenyNeedsAReason) {
  const auto* schema = r2r::core::message_schema("guard", "check_action", false);
  ASSERT_NE(schema, nullptr);
  EXPECT_FALSE(schema->validate({{"decision", "deny"}}).empty());
  EXPECT_FALSE(schema->validate({{"decision", "deny"}, {"reason", ""}}).empty());
  EXPECT_TRUE(schema->validate({{"decision", "deny"}, {"reason", "CPU"}}).empty());
  EXPECT_TRUE(schema->validate({{"decision", "allow"}}).empty());
}

}  // namespace
