// SPDX-License-Identifier: MIT
#include "output_encoding.hpp"

#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::sandbox;

TEST(OutputEncoding, Utf8PassesAndBinaryIsBase64) {
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\xc3"));          // cut short
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));      // overlong
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));  // surrogate
  EXPECT_EQ(encode_output("ok\n").encoding, "utf-8");
  const std::string raw("\x00\xff\x10zz", 5);
  const auto e = encode_output(raw);
  EXPECT_EQ(e.encoding, "base64");
  EXPECT_EQ(base64_decode(e.text), raw);
}

TEST(OutputEncoding, Base64KnownVectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_decode("Zm9vYmE="), "fooba");
  EXPECT_THROW(base64_decode("Zm9v!"), std::invalid_argument);
}

}  // namespace
