// SPDX-License-Identifier: MIT
#include "region_edit.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <regex>
#include <system_error>

namespace r2r::plugins::converter::agentic {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t eol = text.find('\n', start);
    if (eol == std::string_view::npos) eol = text.size();
    lines.emplace_back(text.substr(start, eol - start));
    start = eol + 1;
  }
  return lines;
}

std::vector<line_range> hazard_regions(const std::vector<sdk::converter::hazard>& hazards, std::int64_t line_count,
                                       std::int64_t context) {
  std::vector<line_range> windows;
  for (const auto& h : hazards) {
    if (h.line < 1 || h.line > line_count) continue;
    windows.push_back({std::max<std::int64_t>(1, h.line - context), std::min(line_count, h.line + context)});
  }
  std::sort(windows.begin(), windows.end(), [](const line_range& a, const line_range& b) { return a.first < b.first; });
  std::vector<line_range> merged;
  for (const auto& w : windows) {
    if (!merged.empty() && w.first <= merged.back().last + 1) {
      merged.back().last = std::max(merged.back().last, w.last);
    } else {
      merged.push_back(w);
    }
  }
  return merged;
}

namespace {

// The line number a run of digits names; nothing when it does not fit an int64.
std::optional<std::int64_t> line_number(const std::string& digits) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

}  // namespace

parsed_answer parse_answer(std::string_view answer, const std::vector<line_range>& regions) {
  static const std::regex header(R"(^@@ replace ([0-9]+)-([0-9]+)\s*$)");
  parsed_answer out;
  const auto lines = split_lines(answer);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, header)) {
      if (lines[i].rfind("@@", 0) == 0) {
        out.problem = "line " + std::to_string(i + 1) + " of your answer starts with @@ but is not '@@ replace A-B'";
        return out;
      }
      continue;
    }
    edit e;
    // A number too large for int64 names a line of no file: -1 puts it inside no region.
    e.range = {line_number(m[1].str()).value_or(-1), line_number(m[2].str()).value_or(-1)};
    std::size_t j = i + 1;
    for (; j < lines.size() && lines[j] != "@@ end"; ++j) e.replacement += lines[j] + "\n";
    if (j == lines.size()) {
      out.problem = "the block '@@ replace " + m[1].str() + "-" + m[2].str() + "' has no closing '@@ end' line";
      return out;
    }
    const bool inside = std::any_of(regions.begin(), regions.end(), [&](const line_range& r) {
      return e.range.first >= r.first && e.range.last <= r.last && e.range.first <= e.range.last;
    });
    if (!inside) {
      out.problem = "lines " + m[1].str() + "-" + m[2].str() +
                    " are not inside one of the regions shown; change only the lines you were given";
      return out;
    }
    out.edits.push_back(std::move(e));
    i = j;
  }
  if (out.edits.empty()) {
    out.problem = "the answer has no '@@ replace A-B' ... '@@ end' block";
    return out;
  }
  std::sort(out.edits.begin(), out.edits.end(),
            [](const edit& a, const edit& b) { return a.range.first < b.range.first; });
  for (std::size_t k = 1; k < out.edits.size(); ++k) {
    if (out.edits[k].range.first <= out.edits[k - 1].range.last) {
      out.problem = "two blocks overlap at line " + std::to_string(out.edits[k].range.first);
      out.edits.clear();
      return out;
    }
  }
  return out;
}

std::string apply_edits(std::string_view text, const std::vector<edit>& edits) {
  const auto lines = split_lines(text);
  std::string out;
  std::size_t next = 0;  // index into edits
  for (std::int64_t n = 1; n <= static_cast<std::int64_t>(lines.size()); ++n) {
    if (next < edits.size() && edits[next].range.first == n) {
      out += edits[next].replacement;
      n = edits[next].range.last;
      ++next;
      continue;
    }
    out += lines[static_cast<std::size_t>(n - 1)];
    out += '\n';
  }
  if (!text.empty() && text.back() != '\n' && !out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace r2r::plugins::converter::agentic
