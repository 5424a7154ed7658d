// SPDX-License-Identifier: MIT
// The request-body writer: escaping, UTF-8 checks, nesting, and agreement with nlohmann.
#include "json_writer.hpp"
#include "errors.hpp"

#include <gtest/gtest.h>

#include <random>

namespace {

using namespace r2r::plugins::llm;
using nlohmann::json;

std::string escaped(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(JsonWriter, EscapesWhatJsonRequires) {
  EXPECT_EQ(escaped("plain"), "\"plain\"");
  EXPECT_EQ(escaped("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(escaped("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(escaped(std::string("\x01\x1f", 2)), R"("\u0001\u001f")");
  EXPECT_EQ(escaped(std::string("nul\0in", 6)), R"("nul\u0000in")");
  EXPECT_EQ(escaped("caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x9A\x80"), "\"caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x9A\x80\"");
}

TEST(JsonWriter, RejectsInvalidUtf8WithItsPosition) {
  for (const std::string& bad :
       {std::string("ab\xFF"), std::string("\xC3"), std::string("\xE0\x80\x80"), std::string("\xED\xA0\x80"),
        std::string("\xF4\x90\x80\x80"), std::string("\xC0\xAF")}) {
    try {
      escaped(bad);
      ADD_FAILURE() << "accepted invalid UTF-8";
    } catch (const llm_error& e) {
      EXPECT_EQ(e.kind(), failure::invalid_request);
    }
  }
  try {
    escaped("ab\xFF");
    FAIL() << "accepted invalid UTF-8";
  } catch (const llm_error& e) {
    EXPECT_STREQ(e.what(), "invalid_request: a string of the request is not valid UTF-8 (byte 2 of 3)");
  }
}

TEST(JsonWriter, AgreesWithNlohmannOnRandomText) {
  std::mt19937 gen(42);
  for (int round = 0; round < 200; ++round) {
    std::string s;
    const int n = static_cast<int>(gen() % 200);
    for (int i = 0; i < n; ++i) {
      const unsigned pick = gen() % 10;
      if (pick < 6) {
        s += static_cast<char>(0x20 + gen() % 95);
      } else if (pick < 8) {
        s += static_cast<char>(gen() % 0x20);
      } else if (pick < 9) {
        s += "\xC3\xA9";
      } else {
        s += "\xF0\x9F\x9A\x80";
      }
    }
    EXPECT_EQ(json::parse(escaped(s)).get<std::string>(), s);
  }
}

TEST(JsonWriter, NestsWithCommasInTheRightPlaces) {
  json_writer w;
  w.begin_object()
      .key("a")
      .number(std::int64_t{1})
      .key("b")
      .begin_array()
      .string("x")
      .begin_object()
      .end_object()
      .null()
      .boolean(false)
      .number(0.5)
      .end_array()
      .key("c")
      .value(json::parse(R"({"k":[1,2]})"))
      .key("d")
      .begin_array()
      .end_array()
      .end_object();
  const std::string text = w.take();
  EXPECT_EQ(text, R"({"a":1,"b":["x",{},null,false,0.5],"c":{"k":[1,2]},"d":[]})");
  json parsed;
  EXPECT_NO_THROW(parsed = json::parse(text));
  EXPECT_TRUE(parsed.is_object());
}

}  // namespace
