// SPDX-License-Identifier: MIT
#include "tag_parser.hpp"

#include <cctype>
#include <map>
#include <regex>

namespace r2r::plugins::ranker {
namespace {

bool is_version_text(const std::string& s) {
  static const std::regex re(R"(^\d+(\.\d+)+([a-z]+\d*)?(\.[a-z]+\d*)?$)");
  return std::regex_match(s, re);
}

// "700" -> "7.0.0", "63" -> "6.3"; dotted text is returned unchanged.
std::string expand_compact(const std::string& digits) {
  if (digits.find('.') != std::string::npos || digits.size() < 2 || digits.size() > 3) return digits;
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i) out += '.';
    out += digits[i];
  }
  return out;
}

// "312" -> "3.12", "310" -> "3.10", "39" -> "3.9".
std::string expand_python(const std::string& digits) {
  if (digits.find('.') != std::string::npos || digits.size() < 2) return digits;
  return digits.substr(0, 1) + "." + digits.substr(1);
}

}  // namespace

std::vector<std::string> tag_tokens(std::string_view tag) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : tag) {
    if (c == '_' || c == '-') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

sdk::ranker::tag_fields parse_tag(std::string_view tag) {
  static const std::regex rocm_re(R"(^rocm(\d+(?:\.\d+)*)$)");
  static const std::regex ubuntu_re(R"(^ubuntu(\d+\.\d+)$)");
  static const std::regex py_re(R"(^py(?:thon)?(\d\.\d+|\d{2,3})$)");
  static const std::regex gfx_re(R"(^gfx[0-9a-f]+$)");
  static const std::regex framework_re(R"(^(pytorch|torch|vllm|jax|tf|tensorflow|sglang|onnxruntime)(\d+(?:\.\d+)+)$)");
  static const std::map<std::string, std::string> framework_key = {
      {"pytorch", "torch"}, {"torch", "torch"},           {"vllm", "vllm"},     {"jax", "jax"},
      {"tf", "tensorflow"}, {"tensorflow", "tensorflow"}, {"sglang", "sglang"}, {"onnxruntime", "onnxruntime"}};
  sdk::ranker::tag_fields f;
  const auto tokens = tag_tokens(tag);
  std::smatch m;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (std::regex_match(t, m, rocm_re)) {
      if (f.rocm.empty()) f.rocm = expand_compact(m[1]);
    } else if (std::regex_match(t, m, ubuntu_re)) {
      f.ubuntu = m[1];
    } else if (std::regex_match(t, m, py_re)) {
      f.python = expand_python(m[1]);
    } else if (std::regex_match(t, gfx_re)) {
      f.gfx.push_back(t);
    } else if (std::regex_match(t, m, framework_re)) {
      f.frameworks[framework_key.at(m[1])] = m[2];
    } else if (auto key = framework_key.find(t); key != framework_key.end()) {
      // "pytorch_release_2.7.1", "vllm_0.8.5": the version is the next version-looking token.
      std::size_t j = i + 1;
      if (j < tokens.size() && tokens[j] == "release") ++j;
      if (j < tokens.size() && is_version_text(tokens[j])) {
        f.frameworks[key->second] = tokens[j];
        i = j;
      }
    }
  }
  return f;
}

sdk::ranker::tag_fields merge_fields(const sdk::ranker::tag_fields& base, const sdk::ranker::tag_fields& parsed) {
  sdk::ranker::tag_fields out = base;
  if (out.rocm.empty()) out.rocm = parsed.rocm;
  if (out.ubuntu.empty()) out.ubuntu = parsed.ubuntu;
  if (out.python.empty()) out.python = parsed.python;
  for (const auto& [k, v] : parsed.frameworks) out.frameworks.emplace(k, v);
  if (out.gfx.empty()) out.gfx = parsed.gfx;
  return out;
}

}  // namespace r2r::plugins::ranker
