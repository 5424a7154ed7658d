// SPDX-License-Identifier: MIT
#include "readme_steps.hpp"

#include <r2r/support/text/readme_commands.hpp>

#include <fstream>
#include <iterator>
#include <regex>

namespace r2r::run {
namespace {

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
  std::ifstream in(tree / name, std::ios::binary);
  const std::string markdown((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string cloned;  // directory of the last skipped clone
  for (auto& found : text::readme_commands(markdown)) {
    readme_command c{std::move(found.command), found.line, {}};
    if (c.command.rfind("git clone", 0) == 0) {
      cloned = clone_target(c.command);
      c.skipped = "the workspace is this repository's clone";
    } else if (!cloned.empty() && (c.command == "cd " + cloned || c.command == "cd " + cloned + "/")) {
      c.skipped = "the commands run in the clone's directory";
    }
    out.commands.push_back(std::move(c));
  }
  return out;
}

}  // namespace r2r::run
