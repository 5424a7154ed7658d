// SPDX-License-Identifier: MIT
// The lexer must find exactly the code identifiers; everything inside comments and literals is
// one token that a rewrite never looks into.
#include <r2r/convert/lexer.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using r2r::plugins::converter::lexer;
using r2r::plugins::converter::token;
using r2r::plugins::converter::token_kind;

struct lexed {
  std::vector<token> tokens;
  std::vector<std::string> texts;
  std::string error;
};

lexed lex(std::string_view text) {
  lexed out;
  lexer lx(text);
  for (;;) {
    const token t = lx.next();
    if (t.kind == token_kind::end_of_file) break;
    out.tokens.push_back(t);
    out.texts.emplace_back(lx.text_of(t));
    if (t.kind == token_kind::error) {
      out.error = lx.error_message();
      break;
    }
  }
  return out;
}

std::vector<std::string> identifiers(std::string_view text) {
  std::vector<std::string> ids;
  const auto l = lex(text);
  for (std::size_t i = 0; i < l.tokens.size(); ++i) {
    if (l.tokens[i].kind == token_kind::identifier) ids.push_back(l.texts[i]);
  }
  return ids;
}

TEST(Lexer, CommentsAndLiteralsAreSingleTokens) {
  const auto ids = identifiers(
      "int a; // cudaMalloc here\n/* cudaFree\n there */ b \"cudaMemcpy\" 'c' u8\"x\" L'y' R\"d(cudaSetDevice)\n)d\" "
      "c\n");
  EXPECT_EQ(ids, (std::vector<std::string>{"int", "a", "b", "c"}));
}

TEST(Lexer, LineCommentContinuesAfterBackslashNewline) {
  const auto ids = identifiers("// a comment \\\n cudaMalloc still comment\nreal\n");
  EXPECT_EQ(ids, std::vector<std::string>{"real"});
}

TEST(Lexer, RawStringDelimitersAndSuffixes) {
  const auto l = lex("auto s = R\"xy(a)\" )xy\"_sv; z");
  ASSERT_EQ(l.error, "");
  EXPECT_EQ(l.texts[3], "R\"xy(a)\" )xy\"_sv");
  EXPECT_EQ(l.tokens[3].kind, token_kind::string_literal);
  EXPECT_EQ(l.texts[5], "z");
}

TEST(Lexer, DigitSeparatorsAreNotCharacterLiterals) {
  const auto ids = identifiers("int n = 1'000'000; int m = 0x1'ff; cudaMalloc");
  EXPECT_EQ(ids, (std::vector<std::string>{"int", "n", "int", "m", "cudaMalloc"}));
}

TEST(Lexer, EscapedQuotesStayInsideLiterals) {
  const auto ids = identifiers(R"(const char* s = "a \" cudaMalloc \\"; char c = '\''; x)");
  EXPECT_EQ(ids, (std::vector<std::string>{"const", "char", "s", "char", "c", "x"}));
}

TEST(Lexer, DirectivesHeaderNamesAndTheirEnd) {
  const auto l = lex("#include <cuda_runtime.h>\n  # include \"cuda.h\"\n#define X(a) \\\n  cudaFree(a)\nint y;\n");
  ASSERT_EQ(l.error, "");
  std::vector<token_kind> kinds;
  for (const auto& t : l.tokens) kinds.push_back(t.kind);
  EXPECT_EQ(l.texts[2], "<cuda_runtime.h>");
  EXPECT_EQ(l.tokens[2].kind, token_kind::header_name);
  EXPECT_EQ(l.tokens[3].kind, token_kind::directive_end);
  EXPECT_EQ(l.texts[6], "\"cuda.h\"");
  EXPECT_EQ(l.tokens[6].kind, token_kind::header_name);
  // #define spans the spliced line; cudaFree is inside the directive.
  bool saw_cuda_free_in_directive = false;
  for (std::size_t i = 0; i < l.tokens.size(); ++i) {
    if (l.texts[i] == "cudaFree") saw_cuda_free_in_directive = l.tokens[i].in_directive;
    if (l.texts[i] == "y") {
      EXPECT_FALSE(l.tokens[i].in_directive);
    }
  }
  EXPECT_TRUE(saw_cuda_free_in_directive);
}

TEST(Lexer, HashInsideALineIsNotADirective) {
  const auto l = lex("a # b\n");
  for (const auto& t : l.tokens) EXPECT_NE(t.kind, token_kind::directive_hash);
}

TEST(Lexer, ErrorAndWarningTextIsOneToken) {
  const auto l = lex("#error cudaMalloc isn't here\nint z;\n");
  ASSERT_EQ(l.error, "");
  EXPECT_EQ(l.tokens[2].kind, token_kind::directive_text);
  EXPECT_EQ(l.texts[2], "cudaMalloc isn't here");
  EXPECT_EQ(l.texts[5], "z");
}

TEST(Lexer, LaunchChevronsAreTokens) {
  const auto l = lex("k<<<g, b>>>(x); std::vector<std::vector<std::vector<int>>> v;");
  EXPECT_EQ(l.texts[1], "<<<");
  EXPECT_EQ(l.texts[5], ">>>");
}

TEST(Lexer, LinesAndColumns) {
  const auto l = lex("a\n  /* x\n y */ bb\n\tc");
  ASSERT_EQ(l.tokens.size(), 4u);
  EXPECT_EQ(l.tokens[0].line, 1);
  EXPECT_EQ(l.tokens[1].line, 2);
  EXPECT_EQ(l.tokens[1].column, 3);
  EXPECT_EQ(l.tokens[2].line, 3);
  EXPECT_EQ(l.tokens[2].column, 7);
  EXPECT_EQ(l.tokens[3].line, 4);
  EXPECT_EQ(l.tokens[3].column, 2);
}

TEST(Lexer, UnterminatedBlockCommentIsAnError) {
  const auto l = lex("int a;\n/* never closed\n cudaMalloc");
  ASSERT_FALSE(l.tokens.empty());
  EXPECT_EQ(l.tokens.back().kind, token_kind::error);
  EXPECT_EQ(l.tokens.back().line, 2);
  EXPECT_NE(l.error.find("unterminated /* comment"), std::string::npos);
}

TEST(Lexer, UnterminatedStringAndCharAreErrors) {
  auto l = lex("const char* s = \"open\nint x;");
  EXPECT_EQ(l.tokens.back().kind, token_kind::error);
  EXPECT_NE(l.error.find("unterminated string literal"), std::string::npos);
  l = lex("char c = 'x;\n");
  EXPECT_NE(l.error.find("unterminated character literal"), std::string::npos);
  l = lex("auto r = R\"(never closed\n");
  EXPECT_NE(l.error.find("unterminated raw string"), std::string::npos);
}

TEST(Lexer, ApostrophesInIfZeroBlocksAreProse) {
  const auto l = lex("#if 0\nThis doesn't compile, it's notes\n#endif\nint ok;\n");
  EXPECT_EQ(l.error, "");
  bool saw_ok = false;
  for (std::size_t i = 0; i < l.tokens.size(); ++i) {
    if (l.texts[i] == "ok") {
      saw_ok = true;
      EXPECT_FALSE(l.tokens[i].in_skipped_block);
    }
    if (l.texts[i] == "notes") {
      EXPECT_TRUE(l.tokens[i].in_skipped_block);
    }
  }
  EXPECT_TRUE(saw_ok);
}

TEST(Lexer, NestedConditionalsInsideIfZero) {
  const auto l = lex("#if 0\n#ifdef A\nx\n#endif\ny\n#else\nz\n#endif\n");
  for (std::size_t i = 0; i < l.tokens.size(); ++i) {
    if (l.texts[i] == "y") {
      EXPECT_TRUE(l.tokens[i].in_skipped_block);
    }
    if (l.texts[i] == "z") {
      EXPECT_FALSE(l.tokens[i].in_skipped_block);
    }
  }
}

TEST(Lexer, CommentBeforeHashStillStartsADirective) {
  const auto l = lex("/* lead */ #define A 1\n");
  EXPECT_EQ(l.tokens[1].kind, token_kind::directive_hash);
}

}  // namespace
