// SPDX-License-Identifier: MIT
#include "switch_rules.hpp"

#include <map>
#include <mutex>
#include <regex>

namespace r2r::plugins::guard::accel {

namespace {

constexpr auto icase = std::regex::ECMAScript | std::regex::icase;

std::string regex_escape(const std::string& s) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(s, special, R"(\$&)");
}

/// `NAME=value`, `NAME: value`, `["NAME"] = value`, `("NAME", value` for one variable; group 1 is the value.
std::regex assignment_of(const std::string& name) {
  return std::regex(R"((^|[^A-Za-z0-9_$])['"]?)" + regex_escape(name) +
                    R"(['"]?\s*(\]\s*=|=|:|,)\s*['"]?([^'"\s;&|,)\]}]*))");
}

std::string strip_quotes(std::string s) {
  while (!s.empty() && (s.back() == ',' || s.back() == ';' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

std::shared_ptr<const switch_matcher> switch_matcher::shared(const std::vector<policy::switch_rule>& rules,
                                                             const std::vector<policy::forbidden_variable>& forbidden) {
  // The key holds every field, each ended by a byte that no policy string holds unescaped.
  std::string key;
  for (const auto& r : rules) key += r.kind + '\x1f' + r.name + '\x1f' + r.off + '\x1f' + r.component + '\x1e';
  key += '\x1d';
  for (const auto& v : forbidden) key += v.name + '\x1f' + v.why + '\x1e';
  static std::mutex mutex;
  // Kept for the life of the process: a process loads a handful of policies at most.
  static std::map<std::string, std::shared_ptr<const switch_matcher>> built;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = built[key];
  if (!slot) slot = std::make_shared<const switch_matcher>(rules, forbidden);
  return slot;
}

switch_matcher::switch_matcher(const std::vector<policy::switch_rule>& rules,
                               const std::vector<policy::forbidden_variable>& forbidden) {
  for (const auto& r : rules) {
    if (r.kind == "environment")
      environment_.push_back({r, assignment_of(r.name), std::regex(r.off, icase)});
    else if (r.kind == "config")
      config_.push_back({r, std::regex(r.name, icase), std::regex(r.off, icase)});
  }
  for (const auto& v : forbidden) forbidden_.push_back({v, assignment_of(v.name)});
}

std::optional<policy::forbidden_variable> switch_matcher::forbidden_in(const std::string& text) const {
  for (const auto& v : forbidden_)
    if (std::regex_search(text, v.assignment)) return v.variable;
  return std::nullopt;
}

std::vector<switch_finding> switch_matcher::environment_switches(const std::string& text) const {
  std::vector<switch_finding> out;
  for (const auto& r : environment_) {
    for (std::sregex_iterator it(text.begin(), text.end(), r.name), end; it != end; ++it) {
      const std::string value = (*it)[3].str();
      if (std::regex_match(value, r.off)) {
        out.push_back({r.rule.component, r.rule.name + "=" + value});
        break;
      }
    }
  }
  return out;
}

std::vector<switch_finding> switch_matcher::config_switches(const std::vector<std::string>& lines) const {
  // key: value | "key": value | key = value | --key=value | a.b.key=value (last component)
  static const std::regex assigned(
      R"((^|[\s{,(])(--)?['"]?([A-Za-z0-9_.\-]+)['"]?\s*(=|:)\s*['"]?([A-Za-z0-9_.][A-Za-z0-9_.\-]*))");
  // --key value (a flag followed by a value that is not another option)
  static const std::regex flag(R"((^|\s)--([A-Za-z0-9_.\-]+)\s+['"]?([A-Za-z0-9_.][A-Za-z0-9_.\-]*))");
  static const std::regex negated(R"((^|\s)--no[-_]([A-Za-z0-9_\-]+))");
  std::vector<switch_finding> out;
  auto add = [&](std::string key, const std::string& value, const std::string& shown) {
    if (const auto dot = key.rfind('.'); dot != std::string::npos) key = key.substr(dot + 1);
    for (auto& c : key)
      if (c == '-') c = '_';
    for (const auto& r : config_) {
      if (!std::regex_match(key, r.name) || !std::regex_match(strip_quotes(value), r.off)) continue;
      out.push_back({r.rule.component, shown});
      return;
    }
  };
  for (const auto& line : lines) {
    const std::string l = line.substr(0, 400);
    if (l.find_first_not_of(" \t") != std::string::npos && l[l.find_first_not_of(" \t")] == '#') continue;
    for (std::sregex_iterator it(l.begin(), l.end(), assigned), end; it != end; ++it)
      add((*it)[3].str(), (*it)[5].str(), (*it)[0].str());
    for (std::sregex_iterator it(l.begin(), l.end(), flag), end; it != end; ++it)
      add((*it)[2].str(), (*it)[3].str(), (*it)[0].str());
    for (std::sregex_iterator it(l.begin(), l.end(), negated), end; it != end; ++it)
      add((*it)[2].str(), "false", (*it)[0].str());
  }
  return out;
}

std::vector<std::string> command_setting_lines(const std::vector<shell::simple_command>& commands) {
  std::vector<std::string> out;
  static const std::regex substitution(R"(s([/|#,:@])((?:\\.|(?!\1).)*)\1((?:\\.|(?!\1).)*)\1)");
  for (const auto& cmd : commands) {
    if (cmd.argv.empty()) continue;
    const std::string name = shell::program_name(cmd.argv[0]);
    const bool editor = name == "sed" || name == "perl";
    std::string words;
    for (std::size_t k = 1; k < cmd.argv.size(); ++k) {
      const std::string& w = cmd.argv[k];
      std::smatch m;
      if (editor && std::regex_search(w, m, substitution)) {
        out.push_back(m[3].str());
        continue;
      }
      words += " " + w;
    }
    if (!editor) out.push_back(words);
  }
  return out;
}

}  // namespace r2r::plugins::guard::accel
