// SPDX-License-Identifier: MIT
#include "versions.hpp"

#include <algorithm>
#include <cctype>

namespace r2r::plugins::ranker {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool equal_prefix(const version& v, const version& prefix) {
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if ((i < v.size() ? v[i] : 0) != prefix[i]) return false;
  }
  return true;
}

std::optional<bool> clause_allows(std::string_view clause, const version& v) {
  clause = trim(clause);
  if (clause.empty()) return true;
  static constexpr std::string_view ops[] = {"~=", ">=", "<=", "==", "!=", ">", "<"};
  std::string_view op;
  for (auto candidate : ops) {
    if (clause.substr(0, candidate.size()) == candidate) {
      op = candidate;
      break;
    }
  }
  if (op.empty()) return std::nullopt;
  std::string_view rest = trim(clause.substr(op.size()));
  const bool wildcard = rest.size() >= 2 && rest.substr(rest.size() - 2) == ".*";
  if (wildcard) rest.remove_suffix(2);
  const auto target = parse_version(rest);
  if (!target) return std::nullopt;
  const int c = compare_versions(v, *target);
  if (op == "==") return wildcard ? equal_prefix(v, *target) : c == 0;
  if (op == "!=") return wildcard ? !equal_prefix(v, *target) : c != 0;
  if (op == ">=") return c >= 0;
  if (op == "<=") return c <= 0;
  if (op == ">") return c > 0;
  if (op == "<") return c < 0;
  // ~=X.Y(.Z): >= X.Y(.Z) and the same release series (all but the last component).
  if (target->size() < 2) return std::nullopt;
  return c >= 0 && equal_prefix(v, version(target->begin(), target->end() - 1));
}

}  // namespace

std::optional<version> parse_version(std::string_view text) {
  text = trim(text);
  version out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) break;
    int part = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      part = part * 10 + (text[i] - '0');
      if (part > 1000000) return std::nullopt;
      ++i;
    }
    out.push_back(part);
    if (i < text.size() && text[i] == '.' && i + 1 < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      ++i;
      continue;
    }
    break;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

int compare_versions(const version& a, const version& b) {
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const int x = i < a.size() ? a[i] : 0;
    const int y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::optional<bool> spec_allows(std::string_view spec, const version& v) {
  bool all = true;
  while (true) {
    const auto comma = spec.find(',');
    const auto ok = clause_allows(spec.substr(0, comma), v);
    if (!ok) return std::nullopt;
    all = all && *ok;
    if (comma == std::string_view::npos) break;
    spec.remove_prefix(comma + 1);
  }
  return all;
}

}  // namespace r2r::plugins::ranker
