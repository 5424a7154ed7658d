// SPDX-License-Identifier: MIT
#include "readme_steps.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>

namespace r2r::run {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool console_language(const std::string& l) {
  return l == "console" || l == "shell-session" || l == "sh-session";
}

bool shell_language(const std::string& l) {
  return l.empty() || l == "bash" || l == "sh" || l == "shell" || l == "zsh" || console_language(l);
}

std::filesystem::path find_readme(const std::filesystem::path& tree) {
  for (const char* name : {"README.md", "readme.md", "Readme.md", "README.markdown", "README"}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(tree / name, ec)) return name;
  }
  return {};
}

/// The directory a clone command creates: its explicit target, else the URL's last component.
std::string clone_target(const std::string& command) {
  static const std::regex clone(R"(git\s+clone\s+(?:(?:--?[A-Za-z-]+(?:[= ]\S+)?)\s+)*(\S+)(?:\s+(\S+))?)");
  std::smatch m;
  if (!std::regex_search(command, m, clone)) return {};
  if (m[2].matched && m[2].str().front() != '&' && m[2].str().front() != ';') return m[2].str();
  std::string url = m[1].str();
  while (!url.empty() && url.back() == '/') url.pop_back();
  std::string name = url.substr(url.find_last_of("/:") == std::string::npos ? 0 : url.find_last_of("/:") + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".git") == 0) name.resize(name.size() - 4);
  return name;
}

}  // namespace

readme_commands extract_readme_commands(const std::filesystem::path& tree) {
  readme_commands out;
  const auto name = find_readme(tree);
  if (name.empty()) return out;
  out.readme = name.generic_string();
  std::ifstream in(tree / name);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);

  bool in_block = false;
  bool runnable = false;
  bool console = false;
  std::string fence;
  std::string cloned;  // directory of the last skipped clone
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i]);
    if (!in_block) {
      if (t.rfind("```", 0) == 0 || t.rfind("~~~", 0) == 0) {
        in_block = true;
        fence = t.substr(0, 3);
        const auto info = t.find_first_not_of(fence[0]);
        const std::string lang = info == std::string::npos ? std::string() : lower(trim(t.substr(info)));
        const std::string first = lang.substr(0, lang.find_first_of(" {"));
        runnable = shell_language(first);
        console = console_language(first);
      }
      continue;
    }
    if (t.rfind(fence, 0) == 0) {
      in_block = false;
      continue;
    }
    if (!runnable || t.empty()) continue;
    std::string command = t;
    const bool prompted = command.rfind("$ ", 0) == 0;
    if (console && !prompted) continue;
    if (prompted) command = trim(command.substr(2));
    if (command.empty() || command[0] == '#') continue;
    const int start_line = static_cast<int>(i) + 1;
    while (!command.empty() && command.back() == '\\' && i + 1 < lines.size()) {
      command.pop_back();
      command = trim(command) + " " + trim(lines[++i]);
    }
    readme_command c{command, start_line, {}};
    if (command.rfind("git clone", 0) == 0) {
      cloned = clone_target(command);
      c.skipped = "the workspace is this repository's clone";
    } else if (!cloned.empty() && (command == "cd " + cloned || command == "cd " + cloned + "/")) {
      c.skipped = "the commands run in the clone's directory";
    }
    out.commands.push_back(std::move(c));
  }
  return out;
}

}  // namespace r2r::run
