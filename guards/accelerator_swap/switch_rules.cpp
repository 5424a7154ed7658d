// SPDX-License-Identifier: MIT
#include "switch_rules.hpp"

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

bool whole_match(const std::string& value, const std::string& pattern) {
  return std::regex_match(value, std::regex(pattern, icase));
}

std::string strip_quotes(std::string s) {
  while (!s.empty() && (s.back() == ',' || s.back() == ';' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

std::optional<policy::forbidden_variable> forbidden_in(const std::string& text,
                                                       const std::vector<policy::forbidden_variable>& list) {
  for (const auto& v : list)
    if (std::regex_search(text, assignment_of(v.name))) return v;
  return std::nullopt;
}

std::vector<switch_finding> environment_switches(const std::string& text,
                                                 const std::vector<policy::switch_rule>& rules) {
  std::vector<switch_finding> out;
  for (const auto& r : rules) {
    if (r.kind != "environment") continue;
    const std::regex re = assignment_of(r.name);
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
      const std::string value = (*it)[3].str();
      if (whole_match(value, r.off)) {
        out.push_back({r.component, r.name + "=" + value});
        break;
      }
    }
  }
  return out;
}

std::vector<switch_finding> config_switches(const std::vector<std::string>& lines,
                                            const std::vector<policy::switch_rule>& rules) {
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
    for (const auto& r : rules) {
      if (r.kind != "config" || !whole_match(key, r.name) || !whole_match(strip_quotes(value), r.off)) continue;
      out.push_back({r.component, shown});
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
