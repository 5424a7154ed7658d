// SPDX-License-Identifier: MIT
#include "manifest.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace r2r::batch {
namespace {

core::error bad(const std::string& message, int line) {
  return core::error{core::phase::config, "manifest line " + std::to_string(line) + ": " + message, "", ""};
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string canonical_column(const std::string& name) {
  const std::string n = lower(trim(name));
  if (n == "repo" || n == "url" || n == "repository" || n == "repo_url" || n == "github" || n == "source")
    return "repo";
  if (n == "commit" || n == "sha" || n == "ref" || n == "revision") return "commit";
  if (n == "paper" || n == "paper_title" || n == "title") return "paper";
  return n;
}

std::string slug(const std::string& repo) {
  std::string s = repo;
  while (!s.empty() && (s.back() == '/')) s.pop_back();
  if (s.size() > 4 && s.compare(s.size() - 4, 4, ".git") == 0) s.resize(s.size() - 4);
  const auto slash = s.find_last_of("/:");
  std::string name = slash == std::string::npos ? s : s.substr(slash + 1);
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '-';
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  return out.empty() ? "repo" : out.substr(0, 80);
}

std::vector<std::string> split_tags(const std::string& text) {
  std::vector<std::string> tags;
  std::string cur;
  for (char c : text + ";") {
    if (c == ';' || c == '|') {
      if (!trim(cur).empty()) tags.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return tags;
}

core::result<manifest_entry> entry_from(const std::map<std::string, nlohmann::json>& fields, int line) {
  manifest_entry e;
  e.line = line;
  for (const auto& [key, value] : fields) {
    const std::string text = value.is_string() ? trim(value.get<std::string>()) : value.dump();
    if (key == "repo") {
      e.repo = text;
    } else if (key == "commit") {
      e.commit = text;
    } else if (key == "paper") {
      e.paper = text;
    } else if (key == "mode") {
      e.mode = value.is_number_integer() ? std::to_string(value.get<int>()) : text;
    } else if (key == "arch") {
      e.arch = text;
    } else if (key == "tags") {
      if (value.is_array()) {
        for (const auto& t : value)
          if (t.is_string()) e.tags.push_back(t.get<std::string>());
      } else {
        e.tags = split_tags(text);
      }
    } else if (!key.empty()) {
      e.extra[key] = value;
    }
  }
  if (e.repo.empty())
    return tl::unexpected(bad("no repository: every entry needs a `repo` (or `url`) with a git URL or path", line));
  if (!e.mode.empty() && e.mode != "0" && e.mode != "1" && e.mode != "2")
    return tl::unexpected(bad("mode must be 0, 1 or 2, found '" + e.mode + "'", line));
  if (e.commit.find_first_of(" \t'\"") != std::string::npos)
    return tl::unexpected(bad("commit '" + e.commit + "' is not a SHA, tag or branch name", line));
  if (const auto b = e.extra.find("base_image"); b != e.extra.end()) {
    const std::string image = b->is_string() ? trim(b->get<std::string>()) : std::string("-");
    if (image.empty()) {
      e.extra.erase(b);
    } else if (image.front() == '-' || image.find_first_of(" \t'\"") != std::string::npos) {
      return tl::unexpected(
          bad("base_image must be an image reference such as rocm/pytorch:latest, found " + b->dump(), line));
    } else {
      *b = image;
    }
  }
  return e;
}

void assign_keys(std::vector<manifest_entry>& entries) {
  std::map<std::string, int> seen;
  for (auto& e : entries) {
    std::string key = slug(e.repo);
    if (!e.commit.empty()) {
      std::string c;
      for (char ch : e.commit.substr(0, 12)) c += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '-';
      key += "-" + c;
    }
    const int n = ++seen[key];
    e.key = n == 1 ? key : key + "-" + std::to_string(n);
  }
}

}  // namespace

std::vector<std::string> next_csv_record(const std::string& text, std::size_t& pos) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c == '"') {
        if (pos < text.size() && text[pos] == '"') {
          cur += '"';
          ++pos;
        } else {
          quoted = false;
        }
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(cur);
      cur.clear();
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      cur += c;
    }
  }
  fields.push_back(cur);
  return fields;
}

core::result<std::vector<manifest_entry>> parse_manifest(const std::string& text, const std::string& format) {
  std::vector<manifest_entry> entries;
  if (format == "jsonl") {
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (trim(line).empty() || trim(line)[0] == '#') continue;
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object())
        return tl::unexpected(bad("expected one JSON object per line, found: " + line.substr(0, 80), n));
      std::map<std::string, nlohmann::json> fields;
      for (const auto& [k, v] : j.items()) fields[canonical_column(k)] = v;
      auto e = entry_from(fields, n);
      if (!e) return tl::unexpected(e.error());
      entries.push_back(std::move(*e));
    }
  } else {
    std::size_t pos = 0;
    int n = 0;
    std::vector<std::string> header;
    while (pos < text.size()) {
      const std::size_t start = pos;
      auto rec = next_csv_record(text, pos);
      n = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(start), '\n'));
      if (rec.size() == 1 && trim(rec[0]).empty()) continue;
      if (header.empty()) {
        for (const auto& h : rec) header.push_back(canonical_column(h));
        if (std::find(header.begin(), header.end(), "repo") == header.end())
          return tl::unexpected(
              bad("the header row names no repository column: expected `repo` (or `url`, "
                  "`repository`), found '" +
                      text.substr(0, text.find('\n')) + "'",
                  n));
        continue;
      }
      if (rec.size() > header.size())
        return tl::unexpected(bad("has " + std::to_string(rec.size()) + " fields, the header has " +
                                      std::to_string(header.size()) + " (quote fields that contain commas)",
                                  n));
      std::map<std::string, nlohmann::json> fields;
      for (std::size_t i = 0; i < rec.size(); ++i) {
        if (!trim(rec[i]).empty()) fields[header[i]] = rec[i];
      }
      auto e = entry_from(fields, n);
      if (!e) return tl::unexpected(e.error());
      entries.push_back(std::move(*e));
    }
  }
  if (entries.empty()) return tl::unexpected(bad("the manifest lists no repositories", 1));
  assign_keys(entries);
  return entries;
}

core::result<std::vector<manifest_entry>> load_manifest(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return tl::unexpected(core::error{
        core::phase::config, "cannot read the manifest " + path.string() + ": give a CSV or JSONL file of repositories",
        "", path.string()});
  std::ostringstream s;
  s << in.rdbuf();
  const std::string ext = lower(path.extension().string());
  auto r = parse_manifest(s.str(), ext == ".jsonl" || ext == ".ndjson" ? "jsonl" : "csv");
  if (!r) r.error().path = path.string();
  return r;
}

nlohmann::json to_json(const manifest_entry& e) {
  return {{"key", e.key},   {"repo", e.repo}, {"commit", e.commit}, {"paper", e.paper},
          {"mode", e.mode}, {"arch", e.arch}, {"tags", e.tags},     {"extra", e.extra}};
}

}  // namespace r2r::batch
