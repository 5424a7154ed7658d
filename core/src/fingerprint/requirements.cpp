// SPDX-License-Identifier: MIT
// PEP 508 requirement lines and pip requirements files: -r/-c includes (relative to the including
// file, cycles ignored), environment markers, extras, direct references, `+cuXXX` local versions,
// and --index-url/--extra-index-url/--find-links (CUDA wheel indices flagged). pip-tools lock files
// (pip-compile output): per-requirement options (--hash) are dropped and the `# via` comment lines
// under a pin are kept as its provenance.
#include "scan_parts.hpp"
#include "text_util.hpp"

#include <cctype>
#include <filesystem>
#include <regex>

namespace r2r::planning::detail {
namespace {

bool is_cuda_index(std::string_view url) {
  static const std::regex cu(R"((^|[/+_\-])cu\d{2,3}([/.\-_]|$))");
  const std::string u = text::lower(url);
  return text::contains(u, "nvidia") || std::regex_search(u, cu);
}

std::string parent_of(const std::string& rel) {
  const auto slash = rel.rfind('/');
  return slash == std::string::npos ? std::string() : rel.substr(0, slash + 1);
}

std::string lexically_join(const std::string& dir, const std::string& path) {
  return std::filesystem::path(dir + path).lexically_normal().generic_string();
}

/// A path that names something outside the repository before any link is considered.
bool outside(const std::string& normalised) {
  return normalised.empty() || normalised.front() == '/' || normalised == ".." || normalised.rfind("../", 0) == 0;
}

}  // namespace

std::optional<dependency> parse_requirement(std::string_view text_in, std::string& error) {
  std::string_view t = text::trim(text_in);
  dependency d;
  // Direct references written as VCS/URL with #egg=name.
  if (text::contains(t, "://") && !text::contains(t, " @ ") && !text::contains(t, "@ ")) {
    const auto egg = t.find("#egg=");
    if (egg == std::string_view::npos) {
      error = "a URL requirement needs `name @ URL` or `#egg=name`; found '" + std::string(t) + "'";
      return std::nullopt;
    }
    std::string_view name = t.substr(egg + 5);
    name = name.substr(0, name.find_first_of("&[ "));
    d.name = normalise_name(name);
    d.url = std::string(t.substr(0, egg));
    return d;
  }
  const auto semi = t.find(';');
  if (semi != std::string_view::npos) {
    d.marker = std::string(text::trim(t.substr(semi + 1)));
    t = text::trim(t.substr(0, semi));
  }
  std::size_t n = 0;
  while (n < t.size() &&
         (std::isalnum(static_cast<unsigned char>(t[n])) || t[n] == '-' || t[n] == '_' || t[n] == '.')) {
    ++n;
  }
  if (n == 0 || !std::isalnum(static_cast<unsigned char>(t[0]))) {
    error = "expected a package name at the start of '" + std::string(t) + "'";
    return std::nullopt;
  }
  d.name = normalise_name(t.substr(0, n));
  std::string_view rest = text::trim(t.substr(n));
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) {
      error = "unclosed '[' of extras in '" + std::string(t) + "'";
      return std::nullopt;
    }
    std::string_view extras = rest.substr(1, close - 1);
    while (!extras.empty()) {
      const auto comma = extras.find(',');
      const auto e = text::trim(extras.substr(0, comma));
      if (!e.empty()) d.extras.emplace_back(e);
      if (comma == std::string_view::npos) break;
      extras.remove_prefix(comma + 1);
    }
    rest = text::trim(rest.substr(close + 1));
  }
  if (!rest.empty() && rest.front() == '@') {
    d.url = std::string(text::trim(rest.substr(1)));
    return d;
  }
  if (!rest.empty() && rest.front() == '(' && rest.back() == ')') rest = text::trim(rest.substr(1, rest.size() - 2));
  if (!rest.empty()) {
    static const std::regex clause(R"(^\s*(===|~=|==|!=|<=|>=|<|>)\s*[A-Za-z0-9_.*+!\-]+\s*$)");
    std::string spec;
    std::string_view clauses = rest;
    while (true) {
      const auto comma = clauses.find(',');
      const std::string c(text::trim(clauses.substr(0, comma)));
      if (!std::regex_match(c, clause)) {
        error = "'" + c + "' is not a version specifier (expected e.g. >=1.2 or ==2.0.*) in '" + std::string(t) + "'";
        return std::nullopt;
      }
      std::string cleaned;
      for (char ch : c) {
        if (!std::isspace(static_cast<unsigned char>(ch))) cleaned += ch;
      }
      // A local version label such as +cu118 selects a CUDA build: recorded, then dropped.
      if (const auto plus = cleaned.find('+'); plus != std::string::npos) {
        d.local_version = cleaned.substr(plus);
        cleaned = cleaned.substr(0, plus);
      }
      spec += (spec.empty() ? "" : ",") + cleaned;
      if (comma == std::string_view::npos) break;
      clauses.remove_prefix(comma + 1);
    }
    d.specifier = spec;
  }
  return d;
}

bool optional_requirements_name(const std::string& rel) {
  const auto slash = rel.rfind('/');
  const std::string name = text::lower(slash == std::string::npos ? rel : rel.substr(slash + 1));
  for (const auto& w : text::alnum_words(name)) {
    for (const char* o : {"dev", "develop", "test", "tests", "testing", "doc", "docs", "lint", "optional", "extra",
                          "extras", "ci", "style", "typing"}) {
      if (w == o) return true;
    }
  }
  return false;
}

void scan_requirements_file(scan_state& s, const std::string& rel, const std::string& source_kind) {
  if (!s.requirement_files.insert(rel).second) return;
  const bool optional_file = optional_requirements_name(rel);
  std::string content, why;
  if (!s.read(rel, content, why)) {
    s.problem(rel, 0, "cannot read requirements file: " + why);
    return;
  }
  s.files.insert(rel);
  const auto lines = text::lines(content);
  // The pin the next `# via` lines belong to, by index (an -r include appends and may reallocate).
  std::size_t last = std::string::npos;
  bool in_via = false;
  auto add = [&](dependency d, int ln) {
    d.source = source_kind;
    d.file = rel;
    d.line = ln;
    d.optional = d.optional || optional_file;
    s.fp.dependencies.push_back(std::move(d));
    last = s.fp.dependencies.size() - 1;
    in_via = false;
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int ln = static_cast<int>(i) + 1;
    if (const auto c = text::trim(lines[i]); !c.empty() && c.front() == '#') {
      // pip-compile: "# via pkg" or "# via" followed by "#   pkg" / "#   -r requirements.in" lines.
      const auto body = text::trim(c.substr(1));
      if (last != std::string::npos && text::starts_with(body, "via")) {
        in_via = body == "via";
        if (!in_via && body.size() > 4 && body[3] == ' ')
          s.fp.dependencies[last].via.emplace_back(text::trim(body.substr(4)));
      } else if (last != std::string::npos && in_via && !body.empty() && c.size() > 2 && c[1] == ' ' && c[2] == ' ') {
        s.fp.dependencies[last].via.emplace_back(body);
      } else {
        in_via = false;
      }
      continue;
    }
    std::string line(lines[i]);
    while (!line.empty() && line.back() == '\\' && i + 1 < lines.size()) {
      line.pop_back();
      line += " " + std::string(lines[++i]);
    }
    if (auto hash = line.find(" #"); hash != std::string::npos) line = line.substr(0, hash);
    std::string_view t = text::trim(line);
    if (t.empty() || t.front() == '#') continue;
    // Per-requirement options of a package line (--hash=..., --config-settings ...) name no package.
    if (t.front() != '-') {
      if (auto opt = t.find(" --"); opt != std::string_view::npos) t = text::trim(t.substr(0, opt));
    }
    auto option_value = [&](std::string_view opt) -> std::optional<std::string> {
      if (!text::starts_with(t, opt)) return std::nullopt;
      std::string_view v = t.substr(opt.size());
      if (!v.empty() && (v.front() == '=' || std::isspace(static_cast<unsigned char>(v.front())))) {
        return std::string(text::trim(v.substr(1)));
      }
      return std::nullopt;
    };
    std::optional<std::string> v;
    if (t.front() == '-') last = std::string::npos;  // an option line ends the previous pin's comments
    if ((v = option_value("-r")) || (v = option_value("--requirement"))) {
      const std::string target = lexically_join(parent_of(rel), *v);
      if (outside(target)) {
        s.problem(rel, ln, "includes " + *v + " (-r), which is outside the repository: not read");
      } else {
        s.included_by.emplace(target, rel);
        scan_requirements_file(s, target, source_kind);
      }
    } else if ((v = option_value("-c")) || (v = option_value("--constraint"))) {
      const std::string target = lexically_join(parent_of(rel), *v);
      if (outside(target)) {
        s.problem(rel, ln, "constrains with " + *v + " (-c), which is outside the repository: not read");
      } else {
        s.included_by.emplace(target, rel);
        scan_requirements_file(s, target, "constraints");
      }
    } else if ((v = option_value("--index-url")) || (v = option_value("-i")) ||
               (v = option_value("--extra-index-url")) || (v = option_value("--find-links")) ||
               (v = option_value("-f"))) {
      const bool cuda = is_cuda_index(*v);
      s.fp.index_urls.push_back(
          {cuda ? "cuda_index" : "index", *v,
           cuda ? "CUDA wheel index: its torch/nvidia wheels would replace ROCm builds" : std::string(t), rel, ln});
    } else if (text::starts_with(t, "-e ") || text::starts_with(t, "--editable")) {
      const std::string target(text::trim(t.substr(t.find(' ') + 1)));
      if (target == "." || target == "./") continue;  // the repository itself: installed by the plan
      std::string error;
      if (auto d = parse_requirement(target, error)) add(std::move(*d), ln);
    } else if (t.front() == '-') {
      continue;  // other pip options (--no-binary, --pre, --hash ...) do not name packages
    } else if (t == "." || text::starts_with(t, "./") || text::starts_with(t, "../")) {
      continue;
    } else {
      std::string error;
      if (auto d = parse_requirement(t, error)) {
        add(std::move(*d), ln);
      } else {
        s.problem(rel, ln, error);
      }
    }
  }
}

}  // namespace r2r::planning::detail
