// SPDX-License-Identifier: MIT
#include "extractor.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>

namespace r2r::plugins::verifier::mode2 {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string format(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// A regex fragment matching `name` with '_', '-', ' ' interchangeable; other characters escaped.
std::string name_pattern(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (c == '_' || c == '-' || c == ' ')
      out += "[_\\- ]";
    else if (std::isalnum(static_cast<unsigned char>(c)))
      out += c;
    else {
      out += '\\';
      out += c;
    }
  }
  return out;
}

const std::string number = R"(([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))";

/// The qualifier word just before position `at` of `line`: a split, a top-k, or best/final/mean.
std::string qualifier_before(const std::string& line, std::size_t at) {
  static const std::regex word(R"(([A-Za-z]+(?:[-_ ]?\d+)?)[\s_\-]*$)");
  std::smatch m;
  const std::string head = line.substr(0, at);
  if (!std::regex_search(head, m, word)) return "";
  std::string w = lower(m[1].str());
  static const std::set<std::string> known = {"train", "training", "val",  "valid",      "validation", "dev",
                                              "test",  "testing",  "eval", "evaluation", "best",       "final",
                                              "avg",   "average",  "mean", "max",        "min"};
  static const std::regex topk(R"(top[-_ ]?(\d+))");
  std::smatch t;
  if (std::regex_match(w, t, topk)) return "top-" + t[1].str();
  if (w == "training") return "train";
  if (w == "valid" || w == "validation") return "val";
  if (w == "testing") return "test";
  if (w == "evaluation") return "eval";
  if (w == "average") return "avg";
  return known.count(w) ? w : "";
}

extraction refuse(extraction e, std::string why) {
  e.value.reset();
  e.refusal = std::move(why);
  return e;
}

std::optional<double> to_number(const std::string& s) {
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

extractor extractor_from_metric(const nlohmann::json& metric) {
  extractor x;
  x.label = metric.value("name", std::string());
  const auto it = metric.find("extractor");
  if (it == metric.end() || it->is_null()) return x;
  if (!it->is_object())
    throw std::invalid_argument(
        "plan.metric.extractor: expected an object such as {\"kind\": \"regex\", "
        "\"pattern\": \"test accuracy: ([0-9.]+)\"}, found " +
        it->dump());
  const auto str = [&](const char* k) { return it->value(k, std::string()); };
  x.kind = str("kind");
  x.qualifier = str("qualifier");
  if (!str("label").empty()) x.label = str("label");
  x.pattern = str("pattern");
  x.file = str("file");
  x.key = str("key");
  x.column = str("column");
  const auto need = [&](bool ok, const char* what) {
    if (!ok)
      throw std::invalid_argument(std::string("plan.metric.extractor (kind ") + x.kind + "): " + what +
                                  " is missing; add it to the plan's metric");
  };
  if (x.kind == "label") {
    need(!x.label.empty(), "\"label\" (or metric.name)");
  } else if (x.kind == "regex") {
    need(!x.pattern.empty(), "\"pattern\"");
  } else if (x.kind == "json") {
    need(!x.file.empty(), "\"file\"");
    need(!x.key.empty(), "\"key\"");
  } else if (x.kind == "csv") {
    need(!x.file.empty(), "\"file\"");
    need(!x.column.empty(), "\"column\"");
  } else {
    throw std::invalid_argument("plan.metric.extractor.kind: expected label, regex, json or csv, found '" + x.kind +
                                "'");
  }
  if (!x.file.empty() && (x.file.front() == '/' || x.file.find("..") != std::string::npos))
    throw std::invalid_argument("plan.metric.extractor.file: expected a path relative to the workspace, found '" +
                                x.file + "'");
  return x;
}

extraction extract_by_label(std::string_view log, const std::vector<std::string>& labels, std::string_view qualifier,
                            std::string_view plan_unit) {
  extraction e;
  e.rule = "label";
  std::vector<std::regex> after, before;
  for (const auto& l : labels) {
    if (l.empty()) continue;
    const std::string n = name_pattern(l);
    after.emplace_back("(?:^|[^A-Za-z0-9_])\"?(" + n + ")\"?\\s*(?::|=|\\bis\\b)?\\s*" + number + "(\\s*%)?",
                       std::regex::icase);
    before.emplace_back("(?:^|[\\s:=,(|])" + number + "(\\s*%)?\\s+(" + n + ")(?![A-Za-z0-9_])", std::regex::icase);
  }
  const std::string text(log);
  int line_no = 0;
  std::size_t b = 0;
  while (b <= text.size()) {
    auto end = text.find('\n', b);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(b, end - b);
    ++line_no;
    const auto first = line.find_first_not_of(" \t");
    const std::string shown = first == std::string::npos ? "" : line.substr(first, 120);
    std::vector<candidate> here;
    for (const auto& re : after) {
      for (std::sregex_iterator it(line.begin(), line.end(), re), stop; it != stop; ++it) {
        const auto v = to_number((*it)[2].str());
        if (!v) continue;
        here.push_back(
            {*v, (*it)[3].matched, qualifier_before(line, static_cast<std::size_t>(it->position(1))), shown, line_no});
      }
    }
    if (here.empty()) {
      for (const auto& re : before) {
        for (std::sregex_iterator it(line.begin(), line.end(), re), stop; it != stop; ++it) {
          const auto v = to_number((*it)[1].str());
          if (!v) continue;
          here.push_back({*v, (*it)[2].matched, qualifier_before(line, static_cast<std::size_t>(it->position(3))),
                          shown, line_no});
        }
      }
    }
    e.candidates.insert(e.candidates.end(), here.begin(), here.end());
    b = end + 1;
  }
  if (e.candidates.empty())
    return refuse(e, "the log never prints '" + (labels.empty() ? std::string() : labels.front()) + "' with a value");
  std::vector<candidate> chosen;
  for (const auto& c : e.candidates)
    if (qualifier.empty() || c.qualifier == lower(qualifier)) chosen.push_back(c);
  if (chosen.empty()) return refuse(e, "no reading carries the qualifier '" + std::string(qualifier) + "'");
  std::set<std::string> kinds;
  bool pct = false, plain = false;
  std::map<int, std::set<double>> per_line;
  for (const auto& c : chosen) {
    kinds.insert(c.qualifier.empty() ? "(none)" : c.qualifier);
    (c.percent ? pct : plain) = true;
    per_line[c.line].insert(c.value);
  }
  if (kinds.size() > 1) {
    std::string list;
    for (const auto& k : kinds) list += (list.empty() ? "" : ", ") + k;
    return refuse(e, "ambiguous: the label is printed with different qualifiers (" + list +
                         "); name one with extractor.qualifier or give a regex");
  }
  if (pct && plain) return refuse(e, "ambiguous: some readings carry '%' and some do not");
  if (pct && plan_unit != "%")
    return refuse(e, "ambiguous scale: the log prints a percentage but the plan's metric unit is '" +
                         std::string(plan_unit) + "'; set the unit or give a regex");
  for (const auto& [ln, values] : per_line)
    if (values.size() > 1)
      return refuse(e, "ambiguous: line " + std::to_string(ln) + " prints the label with " +
                           std::to_string(values.size()) + " different values");
  e.value = chosen.back().value;
  e.rule = "label, the last of " + std::to_string(chosen.size()) + " reading(s)" +
           (chosen.back().qualifier.empty() ? "" : " qualified '" + chosen.back().qualifier + "'");
  return e;
}

extraction extract_by_regex(std::string_view log, const std::string& pattern) {
  extraction e;
  e.rule = "regex " + pattern;
  std::regex re;
  try {
    re = std::regex(pattern);
  } catch (const std::regex_error& err) {
    return refuse(e, "extractor.pattern does not compile as an ECMAScript regex: " + std::string(err.what()));
  }
  if (re.mark_count() != 1)
    return refuse(e, "extractor.pattern must have exactly one capture group (the number), found " +
                         std::to_string(re.mark_count()) + "; use (?:...) for the others");
  const auto open = pattern.find('(');
  const std::string head = pattern.substr(0, open);
  if (std::none_of(head.begin(), head.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
    return refuse(e, "extractor.pattern must be anchored to a literal label before its capture group");
  const std::string text(log);
  for (std::sregex_iterator it(text.begin(), text.end(), re), stop; it != stop; ++it) {
    const std::string g = (*it)[1].str();
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + it->position(0), '\n'));
    const auto v = to_number(g);
    if (!v)
      return refuse(e, "the capture group matched '" + g + "' on line " + std::to_string(line) + ", not a number");
    e.candidates.push_back({*v, false, "", it->str(0).substr(0, 120), line});
  }
  if (e.candidates.empty()) return refuse(e, "the pattern never matches the log");
  e.value = e.candidates.back().value;
  return e;
}

extraction extract_from_json(std::string_view text, const std::string& key) {
  extraction e;
  e.rule = "json key " + key;
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return refuse(e, "the file is not JSON");
  const nlohmann::json* at = &doc;
  std::size_t b = 0;
  while (b <= key.size()) {
    auto end = key.find('.', b);
    if (end == std::string::npos) end = key.size();
    const std::string part = key.substr(b, end - b);
    if (at->is_object() && at->contains(part)) {
      at = &(*at)[part];
    } else if (at->is_array() && !at->empty() && to_number(part)) {
      long long i = static_cast<long long>(*to_number(part));
      if (i < 0) i += static_cast<long long>(at->size());
      if (i < 0 || i >= static_cast<long long>(at->size())) return refuse(e, "index " + part + " is out of range");
      at = &(*at)[static_cast<std::size_t>(i)];
    } else {
      return refuse(e, "the file has no key '" + part + "' (path " + key + ")");
    }
    b = end + 1;
  }
  if (!at->is_number()) return refuse(e, "the value at " + key + " is " + at->dump().substr(0, 60) + ", not a number");
  e.value = at->get<double>();
  e.candidates.push_back({*e.value, false, "", key, 0});
  return e;
}

extraction extract_from_csv(std::string_view text, const std::string& column) {
  extraction e;
  e.rule = "csv column " + column + ", last row";
  auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::string cur;
    bool q = false;
    for (char c : l) {
      if (c == '"')
        q = !q;
      else if (c == ',' && !q) {
        out.push_back(cur);
        cur.clear();
      } else if (c != '\r') {
        cur += c;
      }
    }
    out.push_back(cur);
    return out;
  };
  std::vector<std::string> rows;
  std::size_t b = 0;
  const std::string t(text);
  while (b < t.size()) {
    auto end = t.find('\n', b);
    if (end == std::string::npos) end = t.size();
    if (end > b && t.substr(b, end - b) != "\r") rows.push_back(t.substr(b, end - b));
    b = end + 1;
  }
  if (rows.size() < 2) return refuse(e, "the file has no header and data row");
  const auto header = split(rows.front());
  const auto col = std::find(header.begin(), header.end(), column);
  if (col == header.end()) return refuse(e, "the header has no column '" + column + "'");
  const auto idx = static_cast<std::size_t>(col - header.begin());
  const auto last = split(rows.back());
  if (idx >= last.size()) return refuse(e, "the last row has no value in column '" + column + "'");
  const auto v = to_number(last[idx]);
  if (!v) return refuse(e, "column '" + column + "' of the last row is '" + last[idx] + "', not a number");
  e.value = *v;
  e.candidates.push_back({*v, false, "", rows.back().substr(0, 120), static_cast<int>(rows.size())});
  return e;
}

std::string describe_refusal(const extraction& e) {
  std::string s = e.refusal;
  if (e.candidates.empty()) return s;
  s += "; candidates:";
  for (std::size_t i = 0; i < e.candidates.size() && i < 6; ++i) {
    const auto& c = e.candidates[i];
    s += (i ? "," : "") + std::string(" '") + c.text + "' (line " + std::to_string(c.line) + ": " + format(c.value) +
         (c.percent ? "%" : "") + ")";
  }
  if (e.candidates.size() > 6) s += " and " + std::to_string(e.candidates.size() - 6) + " more";
  return s;
}

}  // namespace r2r::plugins::verifier::mode2
