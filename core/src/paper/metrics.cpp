// SPDX-License-Identifier: MIT
#include <r2r/paper/metrics.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <vector>

namespace r2r::paper {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Words of lower-cased text, split at anything but letters, digits and '-'.
std::vector<std::string> words_of(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

metric_class classify_metric(const std::string& metric) {
  static const std::set<std::string> accuracy = {"accuracy", "top-5", "f1",  "bleu", "rouge",
                                                 "rouge-l",  "miou",  "map", "auc"};
  if (accuracy.count(metric)) return {"accuracy", "higher", "absolute", 3.0};
  if (metric == "loss" || metric == "perplexity") return {"loss", "lower", "relative", 0.05};
  if (metric == "speedup") return {"ratio", "higher", "relative", 0.15};
  if (metric == "throughput") return {"throughput", "higher", "relative", 0.25};
  if (metric == "latency") return {"latency", "lower", "relative", 0.25};
  const bool lower_better = metric == "fid" || metric == "wer";
  return {"other", lower_better ? "lower" : "higher", "relative", 0.15};
}

std::optional<metric_name> recognise_metric(std::string_view text) {
  const std::string t = lower(text);
  metric_name m;
  const auto ws = words_of(t);
  const auto has = [&](const char* w) {
    for (const auto& x : ws)
      if (x == w) return true;
    return false;
  };
  if (has("top-1") || has("top1")) m.qualifier = "top-1";
  if (has("top-5") || has("top5")) m.qualifier = "top-5";
  if (m.qualifier.empty()) {
    if (has("test")) m.qualifier = "test";
    if (has("val") || has("validation") || has("dev")) m.qualifier = "val";
    if (has("train") || has("training")) m.qualifier = "train";
  }
  if (has("acc") || has("accuracy") || has("acc.") || (!m.qualifier.empty() && m.qualifier.rfind("top", 0) == 0))
    m.metric = "accuracy";
  else if (has("bleu"))
    m.metric = "bleu";
  else if (has("rouge-l"))
    m.metric = "rouge-l";
  else if (has("rouge"))
    m.metric = "rouge";
  else if (has("f1"))
    m.metric = "f1";
  else if (has("miou"))
    m.metric = "miou";
  else if (has("map"))
    m.metric = "map";
  else if (has("auc"))
    m.metric = "auc";
  else if (has("perplexity") || has("ppl"))
    m.metric = "perplexity";
  else if (has("loss"))
    m.metric = "loss";
  else if (has("speedup") || has("speed-up"))
    m.metric = "speedup";
  else if (has("throughput") || t.find("/s") != std::string::npos)
    m.metric = "throughput";
  else if (has("latency"))
    m.metric = "latency";
  else if (has("fid"))
    m.metric = "fid";
  else if (has("wer"))
    m.metric = "wer";
  else
    return std::nullopt;
  if (t.find('%') != std::string::npos) m.unit = "%";
  if (has("ms")) m.unit = "ms";
  if (m.metric == "speedup") m.unit = "x";
  return m;
}

std::optional<number> parse_number_cell(std::string_view text) {
  std::string s;
  for (char c : text)
    if (c != '*') s += c;  // Markdown bold
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  bool negative = false;
  if (s.compare(i, 3, "\xE2\x88\x92") == 0)
    negative = true, i += 3;  // U+2212 minus
  else if (i < s.size() && s[i] == '-')
    negative = true, ++i;
  std::string digits;
  bool dot = false;
  const std::size_t first = i;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
    } else if (c == '.' && !dot && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      digits += c, dot = true;
    } else if (c == ',' && !dot && i > first && i + 3 < s.size() &&
               std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isdigit(static_cast<unsigned char>(s[i + 2])) &&
               std::isdigit(static_cast<unsigned char>(s[i + 3]))) {
      continue;  // thousands separator
    } else {
      break;
    }
  }
  if (digits.empty() || digits.size() > 24) return std::nullopt;
  number n;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n.value);
  if (ec != std::errc() || p != digits.data() + digits.size() || !std::isfinite(n.value)) return std::nullopt;
  if (negative) n.value = -n.value;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i < s.size() && s[i] == '%')
    n.unit = "%", ++i;
  else if (s.compare(i, 2, "\xC3\x97") == 0)
    n.unit = "x", i += 2;  // ×
  else if (i < s.size() && (s[i] == 'x' || s[i] == 'X') &&
           (i + 1 == s.size() || !std::isalpha(static_cast<unsigned char>(s[i + 1]))))
    n.unit = "x", ++i;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i == s.size()) return n;
  // "± 0.2", "(0.2)" spread, or a footnote mark / dagger.
  const std::string_view rest = std::string_view(s).substr(i);
  if (rest.rfind("\xC2\xB1", 0) == 0 || rest.rfind("+-", 0) == 0 || rest.front() == '(' || rest == "\xE2\x80\xA0" ||
      rest == "*" || (rest.size() == 1 && std::isalpha(static_cast<unsigned char>(rest.front())) == 0))
    return n;
  return std::nullopt;
}

std::string squash(std::string_view text) {
  std::string out;
  for (char c : text)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace r2r::paper
