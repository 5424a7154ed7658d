// SPDX-License-Identifier: MIT
#include <r2r/convert/unified_diff.hpp>

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace r2r::plugins::converter {
namespace {

struct lines {
  std::vector<std::string_view> text;
  bool final_newline = true;
};

lines split(std::string_view s) {
  lines out;
  std::size_t start = 0;
  while (start < s.size()) {
    const std::size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) {
      out.text.push_back(s.substr(start));
      out.final_newline = false;
      break;
    }
    out.text.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

enum class op : std::uint8_t { equal, remove, insert };

/// Myers' greedy O((N+M)D) algorithm on integer line ids; returns false when D exceeds max_d.
bool myers(const std::vector<int>& a, const std::vector<int>& b, std::size_t max_d, std::vector<op>& script) {
  const auto n = static_cast<std::int64_t>(a.size());
  const auto m = static_cast<std::int64_t>(b.size());
  const std::int64_t max = std::min<std::int64_t>(n + m, static_cast<std::int64_t>(max_d));
  std::vector<std::int64_t> v(static_cast<std::size_t>(2 * max + 3), 0);
  const std::int64_t offset = max + 1;
  std::vector<std::vector<std::int64_t>> trace;  // v[-d..d] after each step d
  std::int64_t found = -1;
  for (std::int64_t d = 0; d <= max; ++d) {
    for (std::int64_t k = -d; k <= d; k += 2) {
      std::int64_t x;
      if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) {
        x = v[offset + k + 1];
      } else {
        x = v[offset + k - 1] + 1;
      }
      std::int64_t y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    trace.emplace_back(v.begin() + (offset - d), v.begin() + (offset + d + 1));
    if (found >= 0) break;
  }
  if (found < 0) return false;
  // Backtrack from (n, m).
  std::vector<op> reversed;
  std::int64_t x = n;
  std::int64_t y = m;
  for (std::int64_t d = found; d > 0; --d) {
    const auto& prev = trace[static_cast<std::size_t>(d - 1)];  // v of step d-1, indices -(d-1)..(d-1)
    const auto at = [&](std::int64_t k) { return prev[static_cast<std::size_t>(k + d - 1)]; };
    const std::int64_t k = x - y;
    const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
    const std::int64_t prev_k = down ? k + 1 : k - 1;
    const std::int64_t prev_x = at(prev_k);
    const std::int64_t prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      reversed.push_back(op::equal);
      --x, --y;
    }
    reversed.push_back(down ? op::insert : op::remove);
    x = prev_x;
    y = prev_y;
  }
  while (x > 0 && y > 0) {
    reversed.push_back(op::equal);
    --x, --y;
  }
  script.assign(reversed.rbegin(), reversed.rend());
  return true;
}

void append_range(std::string& out, std::size_t start, std::size_t count) {
  // Unified diff ranges are 1-based; an empty range names the line before it.
  out += std::to_string(count == 0 ? start : start + 1);
  if (count != 1) {
    out += ',';
    out += std::to_string(count);
  }
}

}  // namespace

std::string unified_diff(std::string_view path, std::string_view before, std::string_view after,
                         const diff_options& options) {
  if (before == after) return {};
  const lines a = split(before);
  const lines b = split(after);
  // A last line that gained or lost its newline differs even when the text is equal.
  const auto same_line = [&](std::size_t i, std::size_t j) {
    if (a.text[i] != b.text[j]) return false;
    const bool a_last = i + 1 == a.text.size();
    const bool b_last = j + 1 == b.text.size();
    const bool a_nl = !a_last || a.final_newline;
    const bool b_nl = !b_last || b.final_newline;
    return a_nl == b_nl;
  };
  std::size_t head = 0;
  while (head < a.text.size() && head < b.text.size() && same_line(head, head)) ++head;
  std::size_t tail = 0;
  while (tail < a.text.size() - head && tail < b.text.size() - head &&
         same_line(a.text.size() - 1 - tail, b.text.size() - 1 - tail))
    ++tail;

  // Edit script over the whole files: head equal, middle, tail equal.
  std::vector<op> script(head, op::equal);
  const std::size_t a_mid = a.text.size() - tail - head;
  const std::size_t b_mid = b.text.size() - tail - head;
  if (a_mid == b_mid) {
    // As many lines on both sides (a converter that rewrites within lines): pair them by position,
    // which is linear and reads as the edit that happened. Runs of changed lines show their
    // removals first, then their insertions.
    for (std::size_t k = 0; k < a_mid;) {
      if (same_line(head + k, head + k)) {
        script.push_back(op::equal);
        ++k;
        continue;
      }
      std::size_t run = k;
      while (run < a_mid && !same_line(head + run, head + run)) ++run;
      script.insert(script.end(), run - k, op::remove);
      script.insert(script.end(), run - k, op::insert);
      k = run;
    }
  } else {
    std::unordered_map<std::string_view, int> ids;
    std::vector<int> ma;
    std::vector<int> mb;
    const auto id_of = [&](std::string_view line, bool newline) {
      // The missing final newline is part of the identity of the last line.
      const int base = ids.emplace(line, static_cast<int>(ids.size())).first->second;
      return newline ? base * 2 : base * 2 + 1;
    };
    for (std::size_t i = head; i < a.text.size() - tail; ++i)
      ma.push_back(id_of(a.text[i], i + 1 < a.text.size() || a.final_newline));
    for (std::size_t j = head; j < b.text.size() - tail; ++j)
      mb.push_back(id_of(b.text[j], j + 1 < b.text.size() || b.final_newline));
    std::vector<op> middle;
    if (!myers(ma, mb, options.max_edit_distance, middle)) {
      middle.assign(ma.size(), op::remove);
      middle.insert(middle.end(), mb.size(), op::insert);
    }
    script.insert(script.end(), middle.begin(), middle.end());
  }
  script.insert(script.end(), tail, op::equal);

  // Walk the script; positions of each op in a and b.
  struct step {
    op kind;
    std::size_t ai;
    std::size_t bi;
  };
  std::vector<step> steps;
  steps.reserve(script.size());
  std::size_t ai = 0;
  std::size_t bi = 0;
  for (const op o : script) {
    steps.push_back({o, ai, bi});
    if (o != op::insert) ++ai;
    if (o != op::remove) ++bi;
  }

  std::string out;
  out += "--- a/";
  out += path;
  out += "\n+++ b/";
  out += path;
  out += '\n';
  const auto ctx = static_cast<std::size_t>(std::max(0, options.context));
  std::size_t i = 0;
  while (i < steps.size()) {
    if (steps[i].kind == op::equal) {
      ++i;
      continue;
    }
    // A hunk: from `ctx` equal lines before the first change to `ctx` after the last change whose
    // following run of equal lines is shorter than 2*ctx+1.
    const std::size_t first = i >= ctx ? i - ctx : 0;
    std::size_t last_change = i;
    std::size_t j = i;
    while (j < steps.size()) {
      if (steps[j].kind != op::equal) {
        last_change = j;
        ++j;
        continue;
      }
      std::size_t run = j;
      while (run < steps.size() && steps[run].kind == op::equal) ++run;
      if (run == steps.size() || run - j > 2 * ctx) break;
      j = run;
    }
    const std::size_t end = std::min(steps.size(), last_change + 1 + ctx);
    std::size_t a_count = 0;
    std::size_t b_count = 0;
    for (std::size_t k = first; k < end; ++k) {
      if (steps[k].kind != op::insert) ++a_count;
      if (steps[k].kind != op::remove) ++b_count;
    }
    out += "@@ -";
    append_range(out, steps[first].ai, a_count);
    out += " +";
    append_range(out, steps[first].bi, b_count);
    out += " @@\n";
    for (std::size_t k = first; k < end; ++k) {
      const step& s = steps[k];
      std::string_view line;
      bool newline;
      if (s.kind == op::insert) {
        out += '+';
        line = b.text[s.bi];
        newline = s.bi + 1 < b.text.size() || b.final_newline;
      } else {
        out += s.kind == op::remove ? '-' : ' ';
        line = a.text[s.ai];
        newline = s.ai + 1 < a.text.size() || a.final_newline;
      }
      out += line;
      out += '\n';
      if (!newline) out += "\\ No newline at end of file\n";
    }
    i = end;
  }
  return out;
}

}  // namespace r2r::plugins::converter
