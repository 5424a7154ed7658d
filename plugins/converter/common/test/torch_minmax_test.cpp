// SPDX-License-Identifier: MIT
// std::max/std::min in PyTorch-extension kernels survive PyTorch's hipify (torch_minmax.hpp).
// The case is written for the test; `pytorch_math_replace` does what PyTorch's
// replace_math_functions does to .cu/.cuh files for these two names (a plain text replacement).
#include <r2r/convert/hipify.hpp>
#include <r2r/convert/torch_minmax.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

using r2r::plugins::converter::port_torch_minmax;
using ::testing::HasSubstr;
using ::testing::Not;

std::string pytorch_math_replace(std::string s) {
  for (const auto& [from, to] : {std::pair{"std::max(", "::max("}, std::pair{"std::min(", "::min("}}) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + std::string(to).size())) {
      s.replace(at, std::string(from).size(), to);
    }
  }
  return s;
}

const char* const kKernel =
    "#include <c10/util/Half.h>\n"
    "#include <algorithm>\n"
    "template <int N> struct traits {\n"
    "  static constexpr int kElts = std::min(8, N);\n"
    "  static constexpr int kSmem = std::max({4, N, 16});\n"
    "};\n"
    "__device__ int clamp(int v) { return ::std::max(0, std::min<int>(v, 255)); }\n"
    "// std::max(a, b) in a comment\n"
    "const char* s = \"std::min(\";\n";

TEST(TorchMinMax, AttackPytorchsHipifyBreaksInitializerListsAndConstexprCalls) {
  const std::string hipified = pytorch_math_replace(kKernel);
  EXPECT_THAT(hipified, HasSubstr("= ::min(8, N)")) << "not constexpr in HIP";
  EXPECT_THAT(hipified, HasSubstr("::max({4, N, 16})")) << "HIP's ::max takes two arguments";
  EXPECT_THAT(hipified, HasSubstr("return ::::max(0,")) << "not C++ at all";
}

TEST(TorchMinMax, DefenceThePortParenthesisesTheCallsSoPytorchLeavesThem) {
  const auto p = port_torch_minmax("csrc/k.cu", kKernel);
  EXPECT_THAT(p.text, HasSubstr("static constexpr int kElts = (std::min)(8, N);\n"));
  EXPECT_THAT(p.text, HasSubstr("static constexpr int kSmem = (std::max)({4, N, 16});\n"));
  EXPECT_THAT(p.text, HasSubstr("return (::std::max)(0, std::min<int>(v, 255)); }\n"))
      << "an explicit template argument list is not PyTorch's pattern and stays";
  EXPECT_THAT(p.text, HasSubstr("// std::max(a, b) in a comment\nconst char* s = \"std::min(\";\n"));
  EXPECT_EQ(p.stats.at("idioms_ported"), 3);
  ASSERT_EQ(p.diagnostics.size(), 3u);
  EXPECT_EQ(p.diagnostics[0].line, 4);
  EXPECT_EQ(p.diagnostics[0].category, "ported");
  // What PyTorch's hipify then does to the code changes nothing outside the comment and the string.
  const std::string after = pytorch_math_replace(p.text);
  EXPECT_THAT(after, HasSubstr("(std::min)(8, N)"));
  EXPECT_THAT(after, HasSubstr("(std::max)({4, N, 16})"));
  EXPECT_THAT(after, HasSubstr("(::std::max)(0,"));
}

TEST(TorchMinMax, FilesPytorchDoesNotRewriteAreLeftAlone) {
  // A .cpp is not touched by PyTorch's replacement; a .cu without PyTorch headers is no extension.
  EXPECT_EQ(port_torch_minmax("csrc/binding.cpp", kKernel).text, kKernel);
  const std::string plain = "#include <algorithm>\nint f(int a) { return std::max(a, 0); }\n";
  EXPECT_EQ(port_torch_minmax("k.cu", plain).text, plain);
  // A PyTorch include inside a comment or `#if 0` does not make a file an extension.
  const std::string commented = "// #include <torch/extension.h>\n#if 0\n#include <ATen/ATen.h>\n#endif\n" + plain;
  EXPECT_EQ(port_torch_minmax("k.cuh", commented).text, commented);
}

TEST(TorchMinMax, TheFullPortAppliesItAndKeepsLineNumbers) {
  const auto c = r2r::plugins::converter::convert_source("csrc/k.cu", kKernel, {});
  EXPECT_THAT(c.text, HasSubstr("(std::max)({4, N, 16})"));
  EXPECT_EQ(std::count(c.text.begin(), c.text.end(), '\n'), 9);
  EXPECT_THAT(pytorch_math_replace(c.text), Not(HasSubstr("::max({")));
}

}  // namespace

namespace {

TEST(TorchMinMax, PortingTwiceChangesNothingMore) {
  const auto once = r2r::plugins::converter::port_torch_minmax("k.cu", kKernel);
  const auto twice = r2r::plugins::converter::port_torch_minmax("k.cu", once.text);
  EXPECT_EQ(twice.text, once.text);
  EXPECT_TRUE(twice.diagnostics.empty());
}

}  // namespace
