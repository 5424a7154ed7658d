// SPDX-License-Identifier: MIT
// pyproject.toml through toml++: PEP 621 [project] (dependencies, optional-dependencies,
// requires-python), [build-system] (requires, backend) and Poetry ([tool.poetry.dependencies],
// dev groups; caret/tilde constraints converted to PEP 440). Line numbers come from toml++.
#include "scan_parts.hpp"
#include "text_util.hpp"

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include <algorithm>
#include <regex>

namespace r2r::planning::detail {
namespace {

int line_of(const toml::node& n) {
  return static_cast<int>(n.source().begin.line);
}

void add_pep508_array(scan_state& s, const std::string& rel, const toml::array* arr, const std::string& source,
                      bool optional) {
  if (arr == nullptr) return;
  for (const auto& item : *arr) {
    const int ln = line_of(item);
    const auto* str = item.as_string();
    if (str == nullptr) {
      s.problem(rel, ln, "expected a requirement string in " + source + " dependencies");
      continue;
    }
    std::string error;
    if (auto d = parse_requirement(str->get(), error)) {
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

void add_poetry_table(scan_state& s, const std::string& rel, const toml::table* deps, bool optional) {
  if (deps == nullptr) return;
  for (const auto& [key, value] : *deps) {
    const std::string name(key.str());
    const int ln = line_of(value);
    std::string constraint;
    dependency d;
    if (const auto* str = value.as_string()) {
      constraint = str->get();
    } else if (const auto* tbl = value.as_table()) {
      constraint = tbl->get_as<std::string>("version") ? tbl->get_as<std::string>("version")->get() : "";
      if (auto* m = tbl->get_as<std::string>("markers")) d.marker = m->get();
      if (auto* g = tbl->get_as<std::string>("git")) d.url = "git+" + g->get();
      if (auto* u = tbl->get_as<std::string>("url")) d.url = u->get();
      if (auto* o = tbl->get_as<bool>("optional")) d.optional = o->get();
      if (auto* e = tbl->get_as<toml::array>("extras")) {
        for (const auto& x : *e) {
          if (auto* xs = x.as_string()) d.extras.push_back(xs->get());
        }
      }
    } else if (value.as_array() == nullptr) {
      s.problem(rel, ln, "Poetry dependency '" + name + "' must be a version string or a table");
      continue;
    }
    if (name == "python") {
      add_python_spec(s, poetry_to_pep440(constraint), rel, ln, "python = \"" + constraint + "\"");
      continue;
    }
    d.name = normalise_name(name);
    d.specifier = poetry_to_pep440(constraint);
    d.source = "poetry";
    d.file = rel;
    d.line = ln;
    d.optional = d.optional || optional;
    s.fp.dependencies.push_back(std::move(d));
  }
}

// A version component (a run of decimal digits of any length) plus one, without leading zeros.
// Components are text, not int: a pyproject.toml may hold any number of digits.
std::string plus_one(std::string digits) {
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
  std::size_t i = digits.size();
  while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
  if (i == 0)
    digits.insert(digits.begin(), '1');
  else
    ++digits[i - 1];
  return digits;
}

bool is_zero(const std::string& digits) {
  return digits.find_first_not_of('0') == std::string::npos;
}

}  // namespace

std::string poetry_to_pep440(std::string_view constraint_in) {
  const std::string c(text::trim(constraint_in));
  if (c.empty() || c == "*") return "";
  static const std::regex caret(R"(^\^\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$)");
  static const std::regex tilde(R"(^~\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$)");
  static const std::regex bare(R"(^(\d+(?:\.\d+)*)$)");
  std::smatch m;
  if (std::regex_match(c, m, caret)) {
    std::string lower_bound =
        m[1].str() + (m[2].matched ? "." + m[2].str() : "") + (m[3].matched ? "." + m[3].str() : "");
    std::string upper;
    if (!is_zero(m[1].str()) || !m[2].matched) {
      upper = plus_one(m[1].str()) + ".0";
    } else if (!is_zero(m[2].str()) || !m[3].matched) {
      upper = "0." + plus_one(m[2].str());
    } else {
      upper = "0.0." + plus_one(m[3].str());
    }
    return ">=" + lower_bound + ",<" + upper;
  }
  if (std::regex_match(c, m, tilde)) {
    std::string lower_bound =
        m[1].str() + (m[2].matched ? "." + m[2].str() : "") + (m[3].matched ? "." + m[3].str() : "");
    const std::string upper = m[2].matched ? m[1].str() + "." + plus_one(m[2].str()) : plus_one(m[1].str()) + ".0";
    return ">=" + lower_bound + ",<" + upper;
  }
  if (std::regex_match(c, m, bare)) return "==" + c;
  std::string out;
  for (char ch : c) {
    if (!std::isspace(static_cast<unsigned char>(ch))) out += ch;
  }
  return out;
}

void scan_pyproject(scan_state& s, const std::string& rel, std::string_view content) {
  toml::table doc;
  try {
    doc = toml::parse(content, rel);
  } catch (const toml::parse_error& e) {
    s.problem(rel, static_cast<int>(e.source().begin.line), "TOML syntax error: " + std::string(e.description()));
    return;
  }
  if (const auto* project = doc["project"].as_table()) {
    add_pep508_array(s, rel, project->get_as<toml::array>("dependencies"), "pyproject", false);
    if (const auto* opt = project->get_as<toml::table>("optional-dependencies")) {
      for (const auto& [group, arr] : *opt) add_pep508_array(s, rel, arr.as_array(), "pyproject", true);
    }
    if (const auto* rp = project->get_as<std::string>("requires-python")) {
      add_python_spec(s, rp->get(), rel, line_of(*rp), "requires-python = \"" + rp->get() + "\"");
    }
  }
  if (const auto* poetry = doc["tool"]["poetry"].as_table()) {
    add_poetry_table(s, rel, poetry->get_as<toml::table>("dependencies"), false);
    add_poetry_table(s, rel, poetry->get_as<toml::table>("dev-dependencies"), true);
    if (const auto* groups = poetry->get_as<toml::table>("group")) {
      for (const auto& [name, group] : *groups) {
        if (const auto* g = group.as_table()) add_poetry_table(s, rel, g->get_as<toml::table>("dependencies"), true);
      }
    }
    s.fp.build_system = "poetry";
  }
  if (const auto* bs = doc["build-system"].as_table()) {
    add_pep508_array(s, rel, bs->get_as<toml::array>("requires"), "build-system", false);
    const auto* backend = bs->get_as<std::string>("build-backend");
    if (backend && text::contains(backend->get(), "poetry")) {
      s.fp.build_system = "poetry";
    } else if (s.fp.build_system.empty() || s.fp.build_system == "none") {
      s.fp.build_system = "pep517";
    }
    s.fp.installable = true;
  }
}

}  // namespace r2r::planning::detail
