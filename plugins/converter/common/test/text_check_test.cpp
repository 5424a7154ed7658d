// SPDX-License-Identifier: MIT
#include <r2r/convert/text_check.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::converter::check_text;
using r2r::plugins::converter::first_invalid_utf8;
using ::testing::HasSubstr;

TEST(TextCheck, AcceptsUtf8Text) {
  EXPECT_FALSE(check_text("int a; // caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n", 1 << 20));
  EXPECT_FALSE(check_text("\xef\xbb\xbfint bom;\n", 1 << 20));
  EXPECT_FALSE(check_text("", 1 << 20));
}

TEST(TextCheck, RejectsTooLarge) {
  const auto p = check_text(std::string(2048, 'a'), 1024);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, "too_large");
  EXPECT_THAT(p->message, HasSubstr("2048 bytes, above the limit of 1024"));
}

TEST(TextCheck, RejectsBinaryWithPosition) {
  const auto p = check_text(std::string("ab\ncd\0ef", 8), 1 << 20);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, "binary");
  EXPECT_EQ(p->line, 2);
  EXPECT_EQ(p->column, 3);
}

TEST(TextCheck, RejectsInvalidUtf8WithPosition) {
  const auto p = check_text("ok\nna\xefve\n", 1 << 20);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, "invalid_utf8");
  EXPECT_EQ(p->line, 2);
  EXPECT_EQ(p->column, 3);
  EXPECT_THAT(p->message, HasSubstr("0xef"));
}

TEST(TextCheck, Utf8EdgeCases) {
  EXPECT_EQ(first_invalid_utf8("\xc0\xaf"), 0u);          // overlong
  EXPECT_EQ(first_invalid_utf8("abc\xed\xa0\x80"), 3u);   // surrogate
  EXPECT_EQ(first_invalid_utf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("12345678\xe2\x82"), 8u);  // truncated after the 8-byte fast path
  EXPECT_EQ(first_invalid_utf8("\x80"), 0u);              // lone continuation byte
  EXPECT_EQ(first_invalid_utf8("plain ascii text, long enough for the fast path"), std::string_view::npos);
}

}  // namespace
