// SPDX-License-Identifier: MIT
#include <r2r/guards/text_change.hpp>

#include <charconv>
#include <limits>
#include <map>
#include <regex>
#include <sstream>

namespace r2r::plugins::guard {

namespace {

/// A hunk header's line count. Digits beyond `long` (a patch is the agent's text) saturate instead
/// of throwing: the count only bounds how many of the following lines belong to the hunk.
long hunk_count(const std::string& digits) {
  long value = 0;
  // The hunk regex matched `\d+`, so the only failure left is overflow.
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return result.ec == std::errc::result_out_of_range ? std::numeric_limits<long>::max() : value;
}

std::string header_path(std::string s) {
  s = s.substr(0, s.find('\t'));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  if (s.rfind("a/", 0) == 0 || s.rfind("b/", 0) == 0) s = s.substr(2);
  return s;
}

}  // namespace

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::vector<file_change> parse_unified_diff(const std::string& patch) {
  static const std::regex hunk(R"(^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@)");
  std::vector<file_change> files;
  std::string old_path;
  long old_left = 0;  // lines of the current hunk still to come, per side
  long new_left = 0;
  for (const auto& line : split_lines(patch)) {
    if (old_left > 0 || new_left > 0) {
      const char c = line.empty() ? ' ' : line[0];
      const std::string body = line.empty() ? "" : line.substr(1);
      if (c == '+') {
        files.back().added.push_back(body);
        --new_left;
      } else if (c == '-') {
        files.back().removed.push_back(body);
        --old_left;
      } else if (c == '\\') {
        continue;  // "\ No newline at end of file"
      } else {
        files.back().context.push_back(body);
        --old_left;
        --new_left;
      }
      continue;
    }
    std::smatch m;
    if (line.rfind("--- ", 0) == 0) {
      old_path = header_path(line.substr(4));
    } else if (line.rfind("+++ ", 0) == 0) {
      file_change f;
      f.path = header_path(line.substr(4));
      if (f.path == "/dev/null") {
        f.deleted = true;
        f.path = old_path;
      }
      files.push_back(std::move(f));
    } else if (std::regex_search(line, m, hunk)) {
      if (files.empty()) files.push_back({});
      old_left = m[1].matched ? hunk_count(m[1].str()) : 1;
      new_left = m[2].matched ? hunk_count(m[2].str()) : 1;
    }
  }
  return files;
}

file_change line_delta(const std::string& path, const std::optional<std::string>& before, const std::string& after) {
  file_change f;
  f.path = path;
  std::map<std::string, int> count;
  if (before)
    for (const auto& l : split_lines(*before)) ++count[l];
  for (const auto& l : split_lines(after)) {
    auto it = count.find(l);
    if (it != count.end() && it->second > 0) {
      --it->second;
      f.context.push_back(l);
    } else {
      f.added.push_back(l);
    }
  }
  for (const auto& [l, n] : count)
    for (int i = 0; i < n; ++i) f.removed.push_back(l);
  return f;
}

}  // namespace r2r::plugins::guard
