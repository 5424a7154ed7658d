// SPDX-License-Identifier: MIT
#include "degradation.hpp"

#include <cctype>
#include <map>
#include <regex>

namespace r2r::plugins::converter::agentic {
namespace {

std::size_t count(std::string_view text, const std::regex& re) {
  const std::string s(text);
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(s.begin(), s.end(), re), std::sregex_iterator()));
}

std::string strip_comments(std::string_view body) {
  static const std::regex comments(R"(//[^\n]*|/\*[\s\S]*?\*/)");
  return std::regex_replace(std::string(body), comments, "");
}

std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

/// Kernel name -> body (between the outer braces) for each __global__ definition.
std::map<std::string, std::string> kernel_bodies(std::string_view text) {
  static const std::regex head(R"(__global__[^;{(]*?([A-Za-z_][A-Za-z0-9_]*)\s*\()");
  std::map<std::string, std::string> out;
  const std::string s(text);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), head); it != std::sregex_iterator(); ++it) {
    std::size_t at = static_cast<std::size_t>(it->position(0) + it->length(0));
    int depth = 1;  // skip the parameter list
    while (at < s.size() && depth > 0) {
      if (s[at] == '(') ++depth;
      if (s[at] == ')') --depth;
      ++at;
    }
    const std::size_t open = s.find_first_of("{;", at);
    if (open == std::string::npos || s[open] == ';') continue;  // a declaration
    depth = 0;
    std::size_t close = open;
    for (; close < s.size(); ++close) {
      if (s[close] == '{') ++depth;
      if (s[close] == '}' && --depth == 0) break;
    }
    out[(*it)[1].str()] = s.substr(open + 1, close - open - 1);
  }
  return out;
}

}  // namespace

std::string find_degradation(std::string_view before, std::string_view after) {
  static const std::regex global(R"(\b__global__\b)");
  static const std::regex if0(R"(#\s*if\s+0\b)");
  static const std::regex launch(R"(<<<|\bhipLaunchKernelGGL\b)");
  static const std::regex framework(R"(\b(torch|at|thrust)::)");
  if (count(after, global) < count(before, global)) {
    return "a __global__ kernel was removed or lost its __global__ qualifier";
  }
  const auto old_kernels = kernel_bodies(before);
  const auto new_kernels = kernel_bodies(after);
  for (const auto& [name, body] : old_kernels) {
    const std::string old_body = squeeze(strip_comments(body));
    if (old_body.empty() || old_body.rfind("return;", 0) == 0) continue;  // already a stub
    const auto it = new_kernels.find(name);
    if (it == new_kernels.end()) return "kernel '" + name + "' was deleted";
    const std::string new_body = squeeze(strip_comments(it->second));
    if (new_body.empty()) return "kernel '" + name + "' was stubbed: its body is empty";
    if (new_body.rfind("return;", 0) == 0) return "kernel '" + name + "' was stubbed: its body starts with return;";
  }
  if (count(after, if0) > count(before, if0)) return "code was disabled with #if 0";
  if (count(after, launch) < count(before, launch)) {
    return "a kernel launch was removed (replaced by host code or a library call)";
  }
  if (count(after, framework) > count(before, framework)) {
    return "device code was replaced by a framework op (torch::, at:: or thrust::)";
  }
  return {};
}

}  // namespace r2r::plugins::converter::agentic
