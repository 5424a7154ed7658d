// SPDX-License-Identifier: MIT
#include "patch_check.hpp"

#include "tar_reader.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <vector>

namespace r2r::report::detail {
namespace {

struct hunk {
  std::size_t old_start = 0, old_count = 0, new_start = 0, new_count = 0;
  std::vector<std::string> old_lines, new_lines;
};

struct file_patch {
  std::string old_path, new_path;  // after -p1; empty for /dev/null
  std::vector<hunk> hunks;
};

tl::unexpected<core::error> bad(const std::string& what) {
  return core::fail(core::phase::io, "patch.diff " + what, "", "patch.diff");
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      out.push_back(text.substr(pos));
      break;
    }
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

/// "--- a/x/y\t<date>" -> "x/y" (-p1); "" for /dev/null; nullopt when -p1 leaves nothing.
std::optional<std::string> strip_path(std::string_view header) {
  std::string_view p = header.substr(4);
  p = p.substr(0, p.find('\t'));
  while (!p.empty() && (p.back() == ' ' || p.back() == '\r')) p.remove_suffix(1);
  if (p == "/dev/null") return std::string();
  const std::size_t slash = p.find('/');
  if (slash == std::string_view::npos || slash + 1 == p.size()) return std::nullopt;
  return normalize_tar_path(std::string(p.substr(slash + 1)));
}

/// "-12,3" or "+12" after its sign.
bool parse_range(std::string_view text, std::size_t& start, std::size_t& count) {
  const std::size_t comma = text.find(',');
  char* end = nullptr;
  const std::string first(text.substr(0, comma));
  start = std::strtoul(first.c_str(), &end, 10);
  if (first.empty() || *end != '\0') return false;
  count = 1;
  if (comma == std::string_view::npos) return true;
  const std::string second(text.substr(comma + 1));
  count = std::strtoul(second.c_str(), &end, 10);
  return !second.empty() && *end == '\0';
}

core::result<std::vector<file_patch>> parse_diff(std::string_view diff) {
  const auto lines = split_lines(diff);
  std::vector<file_patch> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.rfind("--- ", 0) == 0 && i + 1 < lines.size() && lines[i + 1].rfind("+++ ", 0) == 0) {
      const auto from = strip_path(line);
      const auto to = strip_path(lines[i + 1]);
      if (!from || !to)
        return bad("line " + std::to_string(i + 1) + ": a file header that `patch -p1` cannot strip to a path");
      out.push_back({*from, *to, {}});
      ++i;
      continue;
    }
    if (line.rfind("@@ ", 0) != 0) continue;  // diff --git, index, mode lines and the like
    if (out.empty()) return bad("line " + std::to_string(i + 1) + ": a hunk before any file header");
    const std::size_t minus = line.find(" -"), plus = line.find(" +", minus == std::string_view::npos ? 0 : minus);
    const std::size_t close = line.find(" @@", plus == std::string_view::npos ? 0 : plus);
    hunk h;
    if (minus != 2 || plus == std::string_view::npos || close == std::string_view::npos ||
        !parse_range(line.substr(minus + 2, plus - minus - 2), h.old_start, h.old_count) ||
        !parse_range(line.substr(plus + 2, close - plus - 2), h.new_start, h.new_count))
      return bad("line " + std::to_string(i + 1) + ": a malformed hunk header");
    std::size_t old_left = h.old_count, new_left = h.new_count;
    while (old_left > 0 || new_left > 0) {
      if (++i >= lines.size())
        return bad("hunk " + std::to_string(out.back().hunks.size() + 1) + " of " + out.back().new_path +
                   " is cut short: the file was truncated");
      const std::string_view l = lines[i];
      const char tag = l.empty() ? ' ' : l[0];
      const std::string body(l.empty() ? l : l.substr(1));
      if (tag == '\\') continue;  // "\ No newline at end of file"
      if ((tag == ' ' || tag == '-') && old_left == 0) return bad("line " + std::to_string(i + 1) + ": hunk overruns");
      if ((tag == ' ' || tag == '+') && new_left == 0) return bad("line " + std::to_string(i + 1) + ": hunk overruns");
      if (tag == ' ') {
        h.old_lines.push_back(body), h.new_lines.push_back(body), --old_left, --new_left;
      } else if (tag == '-') {
        h.old_lines.push_back(body), --old_left;
      } else if (tag == '+') {
        h.new_lines.push_back(body), --new_left;
      } else {
        return bad("line " + std::to_string(i + 1) + ": a hunk line must start with ' ', '-' or '+'");
      }
    }
    out.back().hunks.push_back(std::move(h));
  }
  if (out.empty()) return bad("is not empty but holds no unified diff (no ---/+++ file header)");
  return out;
}

std::vector<std::string> content_lines(const std::string& text) {
  std::vector<std::string> out;
  for (const auto l : split_lines(text)) out.emplace_back(l);
  return out;
}

bool matches_at(const std::vector<std::string>& file, const std::vector<std::string>& want, std::size_t at) {
  if (at + want.size() > file.size()) return false;
  for (std::size_t k = 0; k < want.size(); ++k)
    if (file[at + k] != want[k]) return false;
  return true;
}

/// Applies the hunks of `p` to `file` in order; false with the failing hunk's number.
bool apply_hunks(const file_patch& p, std::vector<std::string>& file, std::size_t& failed) {
  long delta = 0;
  std::size_t floor = 0;
  for (std::size_t k = 0; k < p.hunks.size(); ++k) {
    const hunk& h = p.hunks[k];
    const long named = static_cast<long>(h.old_count == 0 ? h.old_start : h.old_start - 1) + delta;
    std::optional<std::size_t> found;
    const long limit = static_cast<long>(file.size());
    for (long step = 0; !found && (named - step >= 0 || named + step <= limit); ++step) {
      for (const long at : {named - step, named + step}) {
        if (at < static_cast<long>(floor) || at > limit) continue;
        if (matches_at(file, h.old_lines, static_cast<std::size_t>(at))) {
          found = static_cast<std::size_t>(at);
          break;
        }
      }
    }
    if (!found) {
      failed = k + 1;
      return false;
    }
    file.erase(file.begin() + static_cast<long>(*found), file.begin() + static_cast<long>(*found + h.old_lines.size()));
    file.insert(file.begin() + static_cast<long>(*found), h.new_lines.begin(), h.new_lines.end());
    delta += static_cast<long>(*found) - named + static_cast<long>(h.new_lines.size()) -
             static_cast<long>(h.old_lines.size());
    floor = *found + h.new_lines.size();
  }
  return true;
}

}  // namespace

core::result<std::set<std::string>> patched_paths(std::string_view diff) {
  auto parsed = parse_diff(diff);
  if (!parsed) return tl::unexpected(parsed.error());
  std::set<std::string> out;
  for (const auto& p : *parsed) {
    if (!p.old_path.empty()) out.insert(p.old_path);
    if (!p.new_path.empty()) out.insert(p.new_path);
  }
  return out;
}

core::result<void> check_patch_applies(std::string_view diff, const std::filesystem::path& archive) {
  std::set<std::string> wanted;
  std::vector<file_patch> patches;
  if (!diff.empty()) {
    auto parsed = parse_diff(diff);
    if (!parsed) return tl::unexpected(parsed.error());
    patches = std::move(*parsed);
    for (const auto& p : patches)
      for (const auto& name : {p.old_path, p.new_path})
        if (!name.empty()) wanted.insert(name);
  }
  auto tar = read_tar(archive, wanted);
  if (!tar) return tl::unexpected(tar.error());
  std::map<std::string, std::optional<std::vector<std::string>>> state;  // path -> lines (nullopt: absent)
  auto current = [&](const std::string& path) -> std::optional<std::vector<std::string>>& {
    auto it = state.find(path);
    if (it != state.end()) return it->second;
    const auto t = tar->wanted.find(path);
    return state[path] = t == tar->wanted.end() ? std::nullopt
                                                : std::optional<std::vector<std::string>>(content_lines(t->second));
  };
  for (const auto& p : patches) {
    const std::string target = p.new_path.empty() ? p.old_path : p.new_path;
    if (target.empty()) return bad("has a file section whose paths are both /dev/null");
    const std::string source = p.old_path.empty() ? target : p.old_path;
    auto& file = current(source);
    if (p.old_path.empty() && file && !file->empty())
      return bad("creates " + target + ", which repo.tar already has: the diff was not made against this repository");
    const bool only_adds = std::all_of(p.hunks.begin(), p.hunks.end(), [](const hunk& h) { return h.old_count == 0; });
    if (!file && !only_adds)
      return bad("changes " + target + ", which repo.tar does not have: the diff was not made against this repository");
    std::vector<std::string> lines = file ? *file : std::vector<std::string>{};
    std::size_t failed = 0;
    if (!apply_hunks(p, lines, failed))
      return bad("does not apply to repo.tar: hunk " + std::to_string(failed) + " of " + target +
                 " does not match the archived file");
    file.reset();  // deleted, or renamed to target
    if (!p.new_path.empty()) current(target) = std::move(lines);
  }
  return {};
}

}  // namespace r2r::report::detail
