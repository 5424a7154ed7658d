// SPDX-License-Identifier: MIT
#include <r2r/guards/known_files.hpp>

#include <r2r/guards/text_change.hpp>

#include <algorithm>
#include <vector>

namespace r2r::plugins::guard {

std::string known_files::normalise(const std::string& path) {
  std::vector<std::string> parts;
  std::string part;
  auto flush = [&] {
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else
        parts.push_back(part);
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    part.clear();
  };
  for (char c : path) {
    if (c == '/')
      flush();
    else
      part += c;
  }
  flush();
  std::string out = !path.empty() && path[0] == '/' ? "/" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out;
}

void known_files::observe(const sdk::guard::observe_request& request) {
  const auto& a = request.action;
  if (a.type == "apply_patch" && request.observation.exit_code == 0) observe_patch(a.text("patch"));
  const std::string path = a.text("path");
  if (path.empty()) return;
  if (a.type == "read_file" && request.observation.exit_code == 0) remember(path, request.observation.stdout_text);
  if (a.type == "write_file" && request.observation.exit_code == 0) {
    remember(path, a.text("content"));
    if (a.text("content").size() <= max_bytes_) agent_[normalise(path)] = a.text("content");
  }
}

void known_files::observe_patch(const std::string& patch) {
  for (const auto& change : parse_unified_diff(patch)) {
    if (change.path.empty()) continue;
    const std::string key = normalise(change.path);
    if (change.deleted) {
      agent_.erase(key);
      files_.erase(key);
      continue;
    }
    std::vector<std::string> lines;
    if (const auto it = agent_.find(key); it != agent_.end())
      lines = split_lines(it->second);
    else if (const auto known = files_.find(key); known != files_.end())
      lines = split_lines(known->second);
    for (const auto& removed : change.removed)
      if (const auto at = std::find(lines.begin(), lines.end(), removed); at != lines.end()) lines.erase(at);
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    for (const auto& l : change.added) text += l + "\n";
    if (text.size() <= max_bytes_) agent_[key] = text;
  }
}

void known_files::remember(const std::string& path, const std::string& content) {
  if (content.size() > max_bytes_) {
    forget(path);
    return;
  }
  files_[normalise(path)] = content;
}

void known_files::forget(const std::string& path) {
  files_.erase(normalise(path));
}

std::optional<std::string> known_files::content(const std::string& path) const {
  const auto it = files_.find(normalise(path));
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> known_files::agent_script(const std::string& path) const {
  const auto it = agent_.find(normalise(path));
  if (it == agent_.end()) return std::nullopt;
  return it->second;
}

}  // namespace r2r::plugins::guard
