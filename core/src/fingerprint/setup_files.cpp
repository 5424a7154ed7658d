// SPDX-License-Identifier: MIT
// setup.py (install_requires, python_requires; CUDAExtension/CppExtension through kernel_builds.cpp), setup.cfg
// ([options] install_requires/python_requires), Dockerfiles (FROM nvidia/cuda...) and
// .python-version. setup.py is read as text, never executed.
#include "scan_parts.hpp"
#include "text_util.hpp"

#include <regex>

namespace r2r::planning::detail {
namespace {

/// String literals inside the bracketed list that starts at `key` (e.g. "install_requires=["),
/// each with its line. Sets `unclosed_line` when the list never closes.
std::vector<std::pair<std::string, int>> list_literals(const std::vector<std::string_view>& lines, std::size_t from,
                                                       std::size_t column, int& unclosed_line) {
  std::vector<std::pair<std::string, int>> out;
  int depth = 0;
  char quote = 0;
  std::string cur;
  for (std::size_t i = from; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    for (std::size_t c = (i == from ? column : 0); c < l.size(); ++c) {
      const char ch = l[c];
      if (quote) {
        if (ch == quote) {
          out.emplace_back(cur, static_cast<int>(i) + 1);
          cur.clear();
          quote = 0;
        } else {
          cur += ch;
        }
        continue;
      }
      if (ch == '#') break;
      if (ch == '[' || ch == '(' || ch == '{') ++depth;
      if (ch == ']' || ch == ')' || ch == '}') {
        if (--depth == 0) return out;
      }
      if ((ch == '"' || ch == '\'') && depth > 0) quote = ch;
    }
  }
  unclosed_line = static_cast<int>(from) + 1;
  return out;
}

void add_deps(scan_state& s, const std::string& rel, const std::vector<std::pair<std::string, int>>& items,
              const std::string& source, bool optional) {
  for (const auto& [text_item, ln] : items) {
    std::string error;
    if (auto d = parse_requirement(text_item, error)) {
      d->source = source;
      d->file = rel;
      d->line = ln;
      d->optional = optional;
      s.fp.dependencies.push_back(std::move(*d));
    } else {
      s.problem(rel, ln, error);
    }
  }
}

}  // namespace

void scan_setup_py(scan_state& s, const std::string& rel, std::string_view content) {
  static const std::regex py_req(R"re(python_requires\s*=\s*["']([^"']+)["'])re");
  const auto lines = text::lines(content);
  s.fp.build_system = s.fp.build_system.empty() ? "setuptools" : s.fp.build_system;
  s.fp.installable = true;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    const int ln = static_cast<int>(i) + 1;
    for (std::string_view key : {"install_requires", "setup_requires"}) {
      const auto at = l.find(key);
      if (at == std::string_view::npos) continue;
      const auto bracket = l.find('[', at);
      if (bracket == std::string_view::npos) continue;  // a variable, usually read from requirements.txt
      int unclosed = 0;
      const auto items = list_literals(lines, i, bracket, unclosed);
      if (unclosed) {
        s.problem(rel, unclosed, std::string(key) + " list opened here is never closed (expected ']')");
      } else {
        add_deps(s, rel, items, key == "install_requires" ? "setup.py" : "build-system", false);
      }
    }
    std::match_results<std::string_view::const_iterator> m;
    if (text::contains(l, "python_requires") && std::regex_search(l.begin(), l.end(), m, py_req)) {
      add_python_spec(s, m[1].str(), rel, ln, std::string(text::trim(l)));
    }
  }
  scan_setup_py_builds(s, rel, content);
}

void scan_setup_cfg(scan_state& s, const std::string& rel, std::string_view content) {
  const auto lines = text::lines(content);
  std::string section;
  std::string key;
  bool optional = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view raw = lines[i];
    const int ln = static_cast<int>(i) + 1;
    const std::string_view t = text::trim(raw);
    if (t.empty() || t.front() == '#' || t.front() == ';') continue;
    if (t.front() == '[') {
      if (t.back() != ']') {
        s.problem(rel, ln, "section header '" + std::string(t) + "' is not closed (expected ']')");
        continue;
      }
      section = std::string(t.substr(1, t.size() - 2));
      key.clear();
      continue;
    }
    const bool continuation = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
    if (!continuation) {
      const auto eq = t.find('=');
      if (eq == std::string_view::npos) {
        s.problem(rel, ln, "expected 'key = value' in section [" + section + "], found '" + std::string(t) + "'");
        key.clear();
        continue;
      }
      key = std::string(text::trim(t.substr(0, eq)));
      const std::string value(text::trim(t.substr(eq + 1)));
      optional = section == "options.extras_require";
      if (section == "options" && key == "python_requires" && !value.empty())
        add_python_spec(s, value, rel, ln, std::string(t));
      if (((section == "options" && key == "install_requires") || optional) && !value.empty()) {
        add_deps(s, rel, {{value, ln}}, "setup.cfg", optional);
      }
      continue;
    }
    if ((section == "options" && key == "install_requires") || section == "options.extras_require") {
      add_deps(s, rel, {{std::string(t), ln}}, "setup.cfg", section == "options.extras_require");
    }
  }
  s.fp.installable = true;
  if (s.fp.build_system.empty()) s.fp.build_system = "setuptools";
}

void scan_dockerfile(scan_state& s, const std::string& rel, std::string_view content) {
  const auto lines = text::lines(content);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto t = text::trim(lines[i]);
    if (!(text::starts_with(t, "FROM ") || text::starts_with(t, "from "))) continue;
    auto words = text::shell_words(t.substr(5));
    std::size_t w = 0;
    while (w < words.size() && text::starts_with(words[w], "--")) ++w;
    if (w >= words.size()) {
      s.problem(rel, static_cast<int>(i) + 1, "FROM without an image");
      continue;
    }
    const std::string image = words[w];
    const bool cuda = text::starts_with(image, "nvidia/") || text::contains(image, "nvcr.io/") ||
                      (text::contains(image, "pytorch/pytorch") && text::contains(image, "cuda"));
    s.fp.dockerfiles.push_back({cuda ? "cuda_base" : "base", image, std::string(t), rel, static_cast<int>(i) + 1});
    if (cuda) {
      s.fp.hazards.push_back({"cuda_base_image", image,
                              "the repository's Dockerfile starts FROM a CUDA image; the plan uses a ROCm base instead",
                              rel, static_cast<int>(i) + 1});
    }
  }
}

void scan_python_version_file(scan_state& s, const std::string& rel, std::string_view content) {
  const auto lines = text::lines(content);
  if (lines.empty()) return;
  const std::string v(text::trim(lines[0]));
  static const std::regex version_re(R"(^(\d+)\.(\d+)(\.\d+)?$)");
  std::smatch m;
  if (!std::regex_match(v, m, version_re)) {
    s.problem(rel, 1, "expected a Python version such as 3.10 or 3.10.12, found '" + v + "'");
    return;
  }
  add_python_spec(s, "==" + m[1].str() + "." + m[2].str() + ".*", rel, 1, v);
}

}  // namespace r2r::planning::detail
