// SPDX-License-Identifier: MIT
#include "knowledge_base.hpp"

#include <r2r/sdk/package_name.hpp>
#include <r2r/support/knowledge.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace r2r::plugins::policy {

namespace {

constexpr std::size_t max_line_bytes = 2048;  // longer lines are matched on their first 2 KiB
constexpr std::size_t max_excerpt_bytes = 300;

const nlohmann::json& embedded(std::string_view name) {
  return r2r::knowledge::table(name);
}

/// Field access with errors that name the file and the JSON pointer.
struct reader {
  const std::string& origin;

  [[noreturn]] void bad(const std::string& pointer, const std::string& what) const {
    throw std::invalid_argument(origin + ": " + pointer + ": " + what +
                                "; fix the file (format: configs/schema/errors.schema.json)");
  }
  std::string string(const nlohmann::json& j, const std::string& key, const std::string& pointer,
                     bool required = true) const {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) bad(pointer, "expected a string field '" + key + "', found none");
      return {};
    }
    if (!it->is_string()) bad(pointer + "/" + key, std::string("expected a string, found ") + it->type_name());
    return it->get<std::string>();
  }
  std::vector<std::string> strings(const nlohmann::json& j, const std::string& key, const std::string& pointer) const {
    std::vector<std::string> out;
    const auto it = j.find(key);
    if (it == j.end()) return out;
    if (!it->is_array())
      bad(pointer + "/" + key, std::string("expected an array of strings, found ") + it->type_name());
    for (std::size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) bad(pointer + "/" + key + "/" + std::to_string(i), "expected a string");
      out.push_back((*it)[i].get<std::string>());
    }
    return out;
  }
  std::regex regex(const std::string& text, bool icase, const std::string& pointer) const {
    try {
      auto flags = std::regex::ECMAScript | std::regex::optimize;
      if (icase) flags |= std::regex::icase;
      return std::regex(text, flags);
    } catch (const std::regex_error& e) {
      bad(pointer, "invalid regex '" + text + "': " + e.what());
    }
  }
};

/// The longest literal that every match of `pattern` contains, or "" when none of 3+ bytes is known.
/// std::regex backtracks, so a class's regexes run only on lines that contain their literal: a line
/// of 3000 bytes costs microseconds instead of ~100 ms. Only text outside groups counts, and
/// nothing when the pattern has a top-level alternation.
std::string required_literal(const std::string& pattern) {
  std::string best, run;
  int depth = 0;
  const auto flush = [&] {
    if (depth == 0 && run.size() > best.size()) best = run;
    run.clear();
  };
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char n = pattern[++i];
      if (std::isalnum(static_cast<unsigned char>(n))) {
        flush();  // \s, \d, \b, \w ...: a class, not a literal
      } else if (depth == 0) {
        run += n;
      }
      continue;
    }
    switch (c) {
      case '|':
        if (depth == 0) return {};
        break;
      case '(':
        flush();
        ++depth;
        break;
      case ')':
        --depth;
        break;
      case '[': {
        flush();
        std::size_t j = i + 1;
        if (j < pattern.size() && pattern[j] == '^') ++j;
        if (j < pattern.size() && pattern[j] == ']') ++j;
        while (j < pattern.size() && pattern[j] != ']') j += pattern[j] == '\\' ? 2 : 1;
        i = j;
        break;
      }
      case '*':
      case '?':
      case '{':
        if (!run.empty()) run.pop_back();  // the quantified atom is optional
        flush();
        if (c == '{') i = pattern.find('}', i) == std::string::npos ? pattern.size() : pattern.find('}', i);
        break;
      case '+':
        flush();
        break;
      case '.':
      case '^':
      case '$':
        flush();
        break;
      default:
        if (depth == 0) run += c;
    }
  }
  flush();
  return best.size() >= 3 ? best : std::string();
}

bool contains(std::string_view line, const std::string& needle, bool icase) {
  if (needle.empty()) return true;
  if (!icase) return line.find(needle) != std::string_view::npos;
  const auto it = std::search(line.begin(), line.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != line.end();
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > max_line_bytes) line = line.substr(0, max_line_bytes);
    lines.push_back(line);
    if (end == text.size()) break;
    at = end + 1;
  }
  return lines;
}

std::string excerpt(std::string_view line) {
  std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  line = line.substr(start);
  if (line.size() <= max_excerpt_bytes) return std::string(line);
  std::size_t cut = max_excerpt_bytes;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return std::string(line.substr(0, cut));
}

}  // namespace

void to_json(nlohmann::json& j, const match& m) {
  j = nlohmann::json{{"class", m.class_id}, {"title", m.title}, {"severity", m.severity}, {"signature", m.signature},
                     {"advice", m.advice},  {"vars", m.vars},   {"line", m.line},         {"excerpt", m.excerpt}};
}

void from_json(const nlohmann::json& j, match& m) {
  m.class_id = j.at("class").get<std::string>();
  m.title = j.value("title", std::string());
  m.severity = j.value("severity", std::string("error"));
  m.signature = j.at("signature").get<std::string>();
  m.advice = j.value("advice", std::string());
  m.vars = j.value("vars", variables{});
  m.line = j.value("line", std::size_t{0});
  m.excerpt = j.value("excerpt", std::string());
}

const knowledge_base& knowledge_base::builtin() {
  static const knowledge_base kb =
      parse(embedded("errors"), embedded("imports"), embedded("cuda_packages"), "configs/knowledge/errors.json");
  return kb;
}

knowledge_base knowledge_base::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::invalid_argument(
        "knowledge file '" + path +
        "' cannot be read; give an existing errors.json (format: "
        "configs/schema/errors.schema.json) or leave knowledge_file unset for the built-in one");
  }
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument("knowledge file '" + path + "' is not valid JSON: " + e.what());
  }
  return parse(doc, embedded("imports"), embedded("cuda_packages"), path);
}

knowledge_base knowledge_base::parse(const nlohmann::json& errors, const nlohmann::json& imports,
                                     const nlohmann::json& cuda_packages, const std::string& origin) {
  const reader r{origin};
  if (!errors.is_object()) r.bad("", std::string("expected a JSON object, found ") + errors.type_name());
  if (r.string(errors, "format", "") != "r2r.knowledge.errors/1") {
    r.bad("/format", "expected \"r2r.knowledge.errors/1\", found \"" + errors.value("format", std::string()) + "\"");
  }
  const auto classes = errors.find("classes");
  if (classes == errors.end() || !classes->is_array()) r.bad("/classes", "expected an array of failure classes");

  knowledge_base kb;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < classes->size(); ++i) {
    const auto& c = (*classes)[i];
    const std::string at = "/classes/" + std::to_string(i);
    if (!c.is_object()) r.bad(at, "expected an object");
    failure_class fc;
    fc.id = r.string(c, "id", at);
    if (!ids.insert(fc.id).second) r.bad(at + "/id", "duplicate class id '" + fc.id + "'");
    fc.title = r.string(c, "title", at);
    fc.severity = r.string(c, "severity", at);
    if (fc.severity != "error" && fc.severity != "warning" && fc.severity != "info") {
      r.bad(at + "/severity", "expected error, warning or info, found '" + fc.severity + "'");
    }
    const bool icase = c.value("icase", false);
    const auto patterns = r.strings(c, "patterns", at);
    if (patterns.empty()) r.bad(at + "/patterns", "expected at least one regex");
    for (std::size_t p = 0; p < patterns.size(); ++p) {
      fc.patterns.push_back(r.regex(patterns[p], icase, at + "/patterns/" + std::to_string(p)));
      fc.needles.push_back(required_literal(patterns[p]));
    }
    fc.icase = icase;
    fc.captures = r.strings(c, "captures", at);
    if (auto it = c.find("collect"); it != c.end()) {
      fc.collect_name = r.string(*it, "name", at + "/collect");
      fc.collect =
          std::make_shared<std::regex>(r.regex(r.string(*it, "regex", at + "/collect"), icase, at + "/collect/regex"));
      if (fc.collect->mark_count() < 1) r.bad(at + "/collect/regex", "expected a capture group (the value collected)");
    }
    if (auto it = c.find("set"); it != c.end()) {
      if (!it->is_object()) r.bad(at + "/set", "expected an object of strings");
      for (const auto& [k, v] : it->items()) {
        if (!v.is_string()) r.bad(at + "/set/" + k, "expected a string");
        fc.constants[k] = v.get<std::string>();
      }
    }
    if (auto it = c.find("derive"); it != c.end()) {
      if (!it->is_array()) r.bad(at + "/derive", "expected an array");
      for (std::size_t d = 0; d < it->size(); ++d) {
        const std::string dat = at + "/derive/" + std::to_string(d);
        derivation dv{r.string((*it)[d], "name", dat), r.string((*it)[d], "function", dat),
                      r.string((*it)[d], "from", dat)};
        if (dv.function != "package_of_import" && dv.function != "package_rule") {
          r.bad(dat + "/function", "expected package_of_import or package_rule, found '" + dv.function + "'");
        }
        fc.derive.push_back(std::move(dv));
      }
    }
    fc.signature = r.string(c, "signature", at);
    fc.on_success = c.value("on_success", false);
    fc.advice = r.string(c, "advice", at);
    const auto fixes = c.find("fixes");
    if (fixes == c.end() || !fixes->is_array()) r.bad(at + "/fixes", "expected an array (empty when no fix is known)");
    for (std::size_t f = 0; f < fixes->size(); ++f) {
      const auto& fj = (*fixes)[f];
      const std::string fat = at + "/fixes/" + std::to_string(f);
      if (!fj.is_object()) r.bad(fat, "expected an object");
      fix_template ft;
      ft.id = r.string(fj, "id", fat);
      ft.description = r.string(fj, "description", fat);
      const auto action = fj.find("action");
      if (action == fj.end() || !action->is_object() || !action->contains("type") || !(*action)["type"].is_string()) {
        r.bad(fat + "/action", "expected an action object with a string \"type\"");
      }
      ft.action = *action;
      if (auto w = fj.find("when"); w != fj.end()) {
        if (!w->is_object()) r.bad(fat + "/when", "expected an object: variable -> allowed values");
        for (const auto& [k, v] : w->items()) ft.when[k] = r.strings(*w, k, fat + "/when");
      }
      ft.retries_step = fj.value("retries_step", false);
      ft.degradation = r.string(fj, "degradation", fat, false);
      ft.activates = r.string(fj, "activates", fat, false);
      fc.fixes.push_back(std::move(ft));
    }
    kb.classes_.push_back(std::move(fc));
  }

  for (const auto& [module, package] : imports.at("imports").items()) {
    kb.imports_[module] = sdk::normalise_package_name(package.get<std::string>());
  }
  const auto rule_of = [](const nlohmann::json& j) {
    return package_rule{j.at("action").get<std::string>(), j.value("with", std::string()),
                        j.value("install", std::string()), j.value("note", std::string())};
  };
  for (const auto& [name, rule] : cuda_packages.at("packages").items()) {
    kb.packages_[sdk::normalise_package_name(name)] = rule_of(rule);
  }
  for (const auto& [prefix, rule] : cuda_packages.at("prefixes").items()) kb.prefixes_[prefix] = rule_of(rule);
  return kb;
}

std::string knowledge_base::package_of_import(std::string_view module) const {
  const std::string top(module.substr(0, module.find('.')));
  if (auto it = imports_.find(top); it != imports_.end()) return it->second;
  return sdk::normalise_package_name(top);
}

const knowledge_base::package_rule* knowledge_base::rule_for(std::string_view normalised) const {
  if (auto it = packages_.find(std::string(normalised)); it != packages_.end()) return &it->second;
  const package_rule* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& [prefix, rule] : prefixes_) {
    if (normalised.substr(0, prefix.size()) == prefix && prefix.size() > best_len) {
      best = &rule;
      best_len = prefix.size();
    }
  }
  return best;
}

void knowledge_base::derive(const failure_class& c, variables& vars) const {
  for (const auto& d : c.derive) {
    const auto from = vars.find(d.from);
    const std::string value = from == vars.end() ? std::string() : from->second;
    if (d.function == "package_of_import") {
      vars[d.name] = value.empty() ? std::string() : package_of_import(value);
    } else {  // package_rule
      const package_rule* rule = value.empty() ? nullptr : rule_for(value);
      vars[d.name] = rule ? rule->action : std::string();
      vars[d.name + "_with"] = rule ? rule->with : std::string();
      vars[d.name + "_install"] = rule ? rule->install : std::string();
      vars[d.name + "_note"] = rule ? rule->note : std::string();
    }
  }
}

std::vector<match> knowledge_base::classify(std::string_view text, bool succeeded) const {
  std::vector<match> out;
  if (text.empty()) return out;
  const auto lines = split_lines(text);
  for (const auto& c : classes_) {
    if (succeeded && !c.on_success) continue;
    std::optional<match> m;
    std::vector<std::string> collected;
    for (std::size_t n = 0; n < lines.size(); ++n) {
      const std::string_view line = lines[n];
      std::match_results<std::string_view::const_iterator> found;
      bool hit = false;
      for (std::size_t p = 0; p < c.patterns.size(); ++p) {
        if (!contains(line, c.needles[p], c.icase)) continue;
        if (std::regex_search(line.begin(), line.end(), found, c.patterns[p])) {
          hit = true;
          break;
        }
      }
      if (!hit) continue;
      if (!m) {
        m.emplace();
        m->class_id = c.id;
        m->title = c.title;
        m->severity = c.severity;
        m->line = n + 1;
        m->excerpt = excerpt(line);
        m->vars = c.constants;
        for (std::size_t g = 0; g < c.captures.size(); ++g) {
          m->vars[c.captures[g]] = g + 1 < found.size() && found[g + 1].matched ? found[g + 1].str() : std::string();
        }
      }
      if (!c.collect) break;
      for (std::regex_iterator<std::string_view::const_iterator> it(line.begin(), line.end(), *c.collect), end;
           it != end; ++it) {
        const std::string value = (*it)[1].str();
        if (std::find(collected.begin(), collected.end(), value) == collected.end()) collected.push_back(value);
      }
    }
    if (!m) continue;
    if (c.collect) {
      std::string joined;
      for (const auto& v : collected) joined += (joined.empty() ? "" : " ") + v;
      m->vars[c.collect_name] = joined;
    }
    derive(c, m->vars);
    m->signature = fill(c.signature, m->vars);
    m->advice = fill(c.advice, m->vars);
    out.push_back(std::move(*m));
  }
  return out;
}

std::vector<fix> knowledge_base::fixes(const match& m, const variables& context) const {
  std::vector<fix> out;
  const auto c = std::find_if(classes_.begin(), classes_.end(), [&](const auto& x) { return x.id == m.class_id; });
  if (c == classes_.end()) return out;
  variables vars = context;
  for (const auto& [k, v] : m.vars) vars[k] = v;
  // Derived values may be templates themselves (an install command with {arch}); one that names
  // an unknown value becomes empty, so the fixes using it do not apply.
  for (const auto& [k, v] : m.vars) {
    bool missing = false;
    const std::string resolved = fill(v, vars, &missing);
    vars[k] = missing ? std::string() : resolved;
  }
  for (const auto& t : c->fixes) {
    bool holds = true;
    for (const auto& [name, allowed] : t.when) {
      const auto it = vars.find(name);
      const std::string value = it == vars.end() ? std::string() : it->second;
      holds = holds && std::find(allowed.begin(), allowed.end(), value) != allowed.end();
    }
    if (!holds) continue;
    bool missing = false;
    fix f{
        t.id,       fill(t.description, vars, &missing), fill(t.action, vars, &missing), t.retries_step, t.degradation,
        t.activates};
    if (missing) continue;
    out.push_back(std::move(f));
  }
  return out;
}

std::string knowledge_base::advice(const match& m, const variables& context) const {
  variables vars = context;
  for (const auto& [k, v] : m.vars) vars[k] = v;
  return fill(m.advice, vars);
}

std::vector<std::string> knowledge_base::summaries() const {
  std::vector<std::string> out;
  for (const auto& c : classes_) out.push_back(c.id + " (" + c.title + "): " + c.advice);
  return out;
}

bool knowledge_base::has_class(std::string_view id) const {
  return std::any_of(classes_.begin(), classes_.end(), [&](const auto& c) { return c.id == id; });
}

}  // namespace r2r::plugins::policy
