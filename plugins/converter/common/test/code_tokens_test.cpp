// SPDX-License-Identifier: MIT
// convert_source lexes a file once: the idiom port hands the tokens of its output to the rename
// pass (code_tokens.hpp). What that relies on, pinned here: the handed-on tokens equal a fresh
// lex of the idiom port's output, field by field, and the port's result is the one
// port_cuda_idioms(path, text) gives; so the rename pass sees what it saw when it lexed again.
#include "../src/code_tokens.hpp"
#include "../src/cuda_idioms_shared.hpp"

#include <r2r/convert/cuda_idioms.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace r2r::plugins::converter;

std::string describe(const token& t) {
  std::ostringstream s;
  s << "kind " << static_cast<int>(t.kind) << " [" << t.begin << "," << t.end << ") " << t.line << ":" << t.column
    << (t.in_directive ? " directive" : "") << (t.in_skipped_block ? " skipped" : "");
  return s.str();
}

void expect_same_tokens(const std::vector<token>& got, const std::vector<token>& want, std::string_view text,
                        const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const token& a = got[i];
    const token& b = want[i];
    const bool same = a.kind == b.kind && a.begin == b.begin && a.end == b.end && a.line == b.line &&
                      a.column == b.column && a.in_directive == b.in_directive &&
                      a.in_skipped_block == b.in_skipped_block;
    ASSERT_TRUE(same) << where << ": token " << i << " '" << text.substr(b.begin, b.end - b.begin) << "': handed on "
                      << describe(a) << ", lexed " << describe(b);
  }
}

/// The shared-token port of `text` against the plain port and a fresh lex of its output.
void check_equivalent(const std::string& path, const std::string& text) {
  code_tokens tokens = lex_code(text);
  const idiom_port shared = port_cuda_idioms(path, text, tokens);
  const idiom_port plain = port_cuda_idioms(path, text);
  ASSERT_EQ(shared.text, plain.text) << path;
  EXPECT_EQ(shared.stats, plain.stats) << path;
  EXPECT_EQ(shared.needs_helpers, plain.needs_helpers) << path;
  EXPECT_EQ(shared.needs_math, plain.needs_math) << path;
  EXPECT_EQ(shared.same_in_hip, plain.same_in_hip) << path;
  ASSERT_EQ(shared.diagnostics.size(), plain.diagnostics.size()) << path;
  for (std::size_t i = 0; i < shared.diagnostics.size(); ++i) {
    EXPECT_EQ(nlohmann::json(shared.diagnostics[i]), nlohmann::json(plain.diagnostics[i])) << path;
  }
  const code_tokens fresh = lex_code(plain.text);
  ASSERT_EQ(tokens.failed, fresh.failed) << path;
  if (fresh.failed) {
    EXPECT_EQ(describe(tokens.error), describe(fresh.error)) << path;
    EXPECT_EQ(tokens.error_message, fresh.error_message) << path;
  }
  expect_same_tokens(tokens.tokens, fresh.tokens, plain.text, path);
}

TEST(CodeTokens, SplicedTokensEqualALexOfThePortedText) {
  const std::vector<std::string> cases = {
      // one call, one line; calls followed by more tokens on their line
      "__global__ void k(float* v) {\n  float x = v[threadIdx.x];\n"
      "  x += __shfl_down_sync(0xffffffff, x, 16); x += __shfl_down_sync(0xffffffff, x, 8);\n"
      "  v[0] = x;\n}\n",
      // a call over several lines, and tokens after it on its last line
      "__device__ float f(float x) {\n  return __shfl_xor_sync(0xffffffff,\n      x,\n      1) + x; }\nint y;\n",
      // the mask argument on its own line: the replacement has fewer newlines than the call
      "__device__ float f(float x) {\n  return __shfl_sync(\n0xffffffff,\n x, 0) * 2; }\n",
      // nested calls, a comment and a string inside the arguments
      "__device__ int g(int p) { return __ballot_sync(0xffffffff, __any_sync(~0u, p /* c */)) + "
      "__all_sync(-1, p); }\nconst char* s = \"__shfl_sync(0xffffffff, x, 1)\";\n",
      // helpers without arguments, loads and stores, trap
      "__device__ void h(float* p, float* q) { __syncwarp(); unsigned m = __activemask(); "
      "__stcs(q, __ldcs(p)); __stwt(q, __ldcg(p + 1)); if (m == 0) __trap(); }\n",
      // calls inside a macro (a directive: the replacement is lexed with the whole text)
      "#define WARP_SUM(x) \\\n  x += __shfl_down_sync(0xffffffff, x, 16); \\\n  x += __shfl_down_sync(0xffffffff, x, "
      "8)\n"
      "__device__ float s(float x) { WARP_SUM(x); return __shfl_down_sync(0xffffffff, x, 1); }\n",
      // calls inside #if 0 (a skipped block), then live code
      "#if 0\nit's prose: __shfl_down_sync(0xffffffff, x, 16)\n#endif\n__device__ float t(float x) { return "
      "__shfl_up_sync(0xffffffff, x, 1); }\n",
      // guards, __CUDA_ARCH__, bf16 and NVTX: one-token rewrites in directives and code
      "#include <cuda_bf16.h>\n#include \"nvToolsExt.h\"\n#ifndef __CUDA_RUNTIME_H__\n#include "
      "<cuda_runtime.h>\n#endif\n"
      "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n#endif\n#ifdef __CUDA_ARCH__\nint d;\n#endif\n"
      "__device__ nv_bfloat16 b(__nv_bfloat162 v) { nvtxRangePushA(\"r\"); nvtxRangePop(); return __low2bfloat16(v); "
      "}\n",
      // a renamed name right before a quote: declined, lexed again
      "nv_bfloat16\"x\" a; nv_bfloat16 'y';\n",
      // partial masks and a mask variable: left as written
      "__device__ float p(float x) { unsigned mask = 0xffffffff; x += __shfl_down_sync(mask, x, 1); "
      "return __shfl_down_sync(0x0000ffff, x, 1); }\n",
      // several rewrites on one line, then a raw string spanning lines
      "__device__ void r(float x) { x = __shfl_sync(0xffffffff, x, 0) + __shfl_sync(0xffffffff, x, 1) + "
      "__shfl_sync(0xffffffff, x, 2); const char* q = R\"(a\nb)\"; nv_bfloat16 z; }\n",
      // CRLF line ends and a backslash splice inside a call
      "__device__ float c(float x) {\r\n  return __shfl_down_sync(0xffffffff, x, \\\n 4);\r\n}\r\n",
      // text the lexer rejects: nothing is ported, the error is handed on
      "__device__ float e(float x) { return __shfl_down_sync(0xffffffff, x, 1); }\nconst char* s = \"open;\n",
      // no idiom at all
      "int main() { return 0; }\n",
  };
  for (std::size_t i = 0; i < cases.size(); ++i) check_equivalent("case" + std::to_string(i) + ".cu", cases[i]);
}

TEST(CodeTokens, SplicingDeclinesEditsItCannotVouchFor) {
  const std::string in = "#define F(x) __shfl_down_sync(0xffffffff, x, 1)\nint a;\n";
  const code_tokens lexed = lex_code(in);
  // tokens: # define F ( x ) __shfl_down_sync ( ... ) <end> int a ;
  std::size_t call = 0;
  while (lexed.tokens[call].end - lexed.tokens[call].begin != 16) ++call;
  const std::string out = "#define F(x) __shfl_down(x, 1, 32)\nint a;\n";
  std::vector<token> spliced;
  const std::size_t close = call + 7;  // __shfl_down_sync ( 0xffffffff , x , 1 )
  ASSERT_EQ(in.substr(lexed.tokens[close].begin, 1), ")");
  EXPECT_FALSE(splice_tokens(in, lexed.tokens, out, {{call, close, 13, 34}}, spliced)) << "a directive";
  // An ordinary call is spliced; a replacement that ends in a token that could join what follows
  // (an identifier) is declined.
  const std::string code = "int b = __shfl_down_sync(0xffffffff, x, 1) + 1;\n";
  const code_tokens code_tokens_in = lex_code(code);
  const std::string good = "int b = __shfl_down(x, 1, 32) + 1;\n";
  ASSERT_TRUE(splice_tokens(code, code_tokens_in.tokens, good, {{3, 10, 8, 29}}, spliced));
  expect_same_tokens(spliced, lex_code(good).tokens, good, "spliced call");
  const std::string open_end = "int b = __shfl_down(x, 1, 32) x + 1;\n";
  EXPECT_FALSE(splice_tokens(code, code_tokens_in.tokens, open_end, {{3, 10, 8, 31}}, spliced));
  // A one-token rewrite into something that is not one identifier is lexed, not assumed.
  const std::string two_words = "int b = a b(0xffffffff, x, 1) + 1;\n";
  EXPECT_FALSE(splice_tokens(code, code_tokens_in.tokens, two_words, {{3, 3, 8, 11}}, spliced));
}

TEST(CodeTokens, TheProjectsCudaCorpusSplicesLikeALex) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(R2R_CONVERT_TEST_DIR)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cu" && ext != ".cuh" && ext != ".hpp" && ext != ".h")) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    check_equivalent(entry.path().string(), s.str());
    ++files;
  }
  EXPECT_GE(files, 20u);
}

}  // namespace
