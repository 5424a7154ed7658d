// SPDX-License-Identifier: MIT
#include <r2r/support/text/fences.hpp>
#include <r2r/support/text/readme_commands.hpp>

namespace r2r::text {
namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

}  // namespace

fence_kind classify_fence(std::string_view language) {
  for (std::string_view l : {"", "bash", "sh", "shell", "zsh"}) {
    if (language == l) return fence_kind::shell;
  }
  for (std::string_view l : {"console", "shell-session", "sh-session", "bash-session"}) {
    if (language == l) return fence_kind::session;
  }
  return fence_kind::other;
}

std::vector<readme_command> readme_commands(std::string_view markdown) {
  std::vector<readme_command> out;
  for (const auto& block : fenced_blocks(markdown)) {
    const auto kind = classify_fence(block.language);
    if (kind == fence_kind::other) continue;
    const auto& lines = block.lines;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string_view t = trim(lines[i]);
      const bool prompted = starts_with(t, "$ ") || t == "$";
      if (kind == fence_kind::session && !prompted) continue;
      if (prompted) t = trim(t.substr(1));
      if (t.empty() || t.front() == '#') continue;
      readme_command c;
      c.line = block.open_line + 1 + static_cast<int>(i);
      c.language = block.language;
      std::string command(t);
      while (!command.empty() && command.back() == '\\' && i + 1 < lines.size()) {
        command.pop_back();
        command = std::string(trim(command)) + " " + std::string(trim(lines[++i]));
      }
      c.last_line = block.open_line + 1 + static_cast<int>(i);
      c.command = std::string(trim(command));
      if (!c.command.empty()) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace r2r::text
