// SPDX-License-Identifier: MIT
// Result sentences (candidates.hpp): the page's text outside tables, two-column pages read column
// by column, split into sentences; each sentence of at most 400 bytes is matched against a few
// fixed patterns ("76.1% top-1 accuracy", "BLEU of 28.4", "a speedup of 2.1×", "2.1× speedup").
#include "paper_internal.hpp"
#include "utf8.hpp"

#include <r2r/paper/metrics.hpp>

#include <algorithm>
#include <regex>
#include <set>

namespace r2r::paper::detail {
namespace {

constexpr std::size_t max_sentence = 400;

// The page texts: lines outside tables, cells right of the page's middle after those left of it.
std::vector<std::pair<int, std::string>> page_texts(const document& doc, const std::vector<bool>& skip) {
  std::vector<std::pair<int, std::string>> out;
  std::size_t i = 0;
  while (i < doc.lines.size()) {
    const int page = doc.lines[i].page;
    std::size_t end = i;
    double right = 0;
    while (end < doc.lines.size() && doc.lines[end].page == page) {
      for (const auto& c : doc.lines[end].cells) right = std::max(right, c.x1);
      ++end;
    }
    const double mid = doc.format == "pdf" ? right / 2 : 1e300;
    std::string left_text, right_text;
    const auto append = [](std::string& to, const std::string& t) {
      if (!to.empty() && to.back() == '-' && to.size() > 1 &&
          std::isalpha(static_cast<unsigned char>(to[to.size() - 2])))
        to.pop_back();  // a word hyphenated at the line's end
      else if (!to.empty())
        to += ' ';
      to += t;
    };
    for (std::size_t k = i; k < end; ++k) {
      if (skip[k]) continue;
      for (const auto& c : doc.lines[k].cells) append(c.x0 >= mid && mid > 0 ? right_text : left_text, c.text);
      if (doc.format != "pdf") left_text += '\n';
    }
    out.emplace_back(page, left_text + " " + right_text);
    i = end;
  }
  return out;
}

std::vector<std::string> sentences_of(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i] == '\n' ? ' ' : text[i];
    cur += c;
    const bool end =
        (c == '.' || c == '!' || c == '?') && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '\n') &&
        (i + 2 >= text.size() || std::isupper(static_cast<unsigned char>(text[i + 2])) || text[i + 1] == '\n');
    if (end || (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == '\n')) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::string unit_of(const std::string& u) {
  if (u == "%") return "%";
  if (u == "x" || u == "X" || u == "\xC3\x97") return "x";
  return "";
}

std::string qualifier_of(std::string q) {
  q = trim(q);
  for (auto& ch : q) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (q == "top1" || q == "top-1") return "top-1";
  if (q == "top5" || q == "top-5") return "top-5";
  if (q == "validation" || q == "val") return "val";
  return q;
}

std::string model_before(const std::string& prefix) {
  static const std::regex subject(
      R"(([A-Z][A-Za-z0-9_.\-]*(?:[ ][A-Z0-9][A-Za-z0-9_.\-]*)?)\s+(?:achieves|obtains|reaches|attains|gets|yields|scores|reports)\b)");
  std::smatch m;
  if (!std::regex_search(prefix, m, subject)) return "";
  std::string s = m[1].str();
  for (const char* generic : {"We", "Our", "It", "This", "The", "Our model", "Our method", "This model"}) {
    if (s == generic) return "";
  }
  if (s.rfind("Our ", 0) == 0) s = s.substr(4);
  if (s.rfind("The ", 0) == 0) s = s.substr(4);
  return s;
}

}  // namespace

std::vector<candidate> sentence_candidates(const document& doc, const std::vector<bool>& skip) {
  using std::regex;
  static const regex value_metric(
      R"((\d+(?:\.\d+)?)\s*(%|×|x)?\s+(top-?[15]\s+)?(test\s+|validation\s+|val\s+)?(accuracy|bleu|f1|rouge-l|miou|map|perplexity|ppl|fid|wer)\b)",
      regex::icase);
  static const regex metric_value(
      R"((top-?[15]\s+)?(test\s+|validation\s+|val\s+)?(accuracy|bleu|f1|perplexity|speed-?up|loss|throughput|latency|fid|wer)(?:\s+score)?\s+(?:of|is|=|:|reaches|to|at)\s+(?:about\s+|approximately\s+)?(\d+(?:\.\d+)?)\s*(%|×|x)?)",
      regex::icase);
  static const regex percent_top(R"((\d+(?:\.\d+)?)\s*%\s+(top-?[15])\b)", regex::icase);
  static const regex times_speedup(R"((\d+(?:\.\d+)?)\s*(×|x)\s+(?:speed-?up|faster))", regex::icase);
  std::vector<candidate> out;
  for (const auto& [page, text] : page_texts(doc, skip)) {
    for (auto sentence : sentences_of(text)) {
      sentence = trim(sentence);
      if (sentence.size() > max_sentence || sentence.size() < 8) continue;
      std::set<std::pair<std::string, double>> seen;
      const auto num = [](const std::string& digits) {
        const auto n = parse_number_cell(digits);
        return n ? n->value : -1.0;  // more digits than a number has: refused below
      };
      const auto add = [&, page = page](const std::smatch& m, std::string metric, std::string qualifier, double value,
                                        std::string unit) {
        if (value < 0) return;
        metric = recognise_metric(metric) ? recognise_metric(metric)->metric : metric;
        if (!seen.emplace(metric, value).second || out.size() >= 2000) return;
        candidate c;
        c.page = page;
        c.source = "sentence";
        c.text = clip_utf8(sentence, 300);
        c.metric = metric;
        c.qualifier = qualifier_of(qualifier);
        c.value = value;
        c.unit = unit_of(unit);
        if (c.metric == "speedup") c.unit = "x";
        const std::string rest = sentence.substr(static_cast<std::size_t>(m.position(0)));
        c.dataset = dataset_in(rest);
        c.split = split_in(rest);
        if (c.split.empty() && (c.qualifier == "test" || c.qualifier == "val")) c.split = c.qualifier;
        c.model = model_before(sentence.substr(0, static_cast<std::size_t>(m.position(0))));
        fill_class(c);
        out.push_back(std::move(c));
      };
      const auto each = [&](const regex& re, auto&& fn) {
        for (std::sregex_iterator it(sentence.begin(), sentence.end(), re), end; it != end; ++it) fn(*it);
      };
      each(value_metric, [&](const std::smatch& m) {
        add(m, m[5].str(), m[3].matched ? m[3].str() : m[4].str(), num(m[1].str()), m[2].str());
      });
      each(metric_value, [&](const std::smatch& m) {
        add(m, m[3].str(), m[1].matched ? m[1].str() : m[2].str(), num(m[4].str()), m[5].str());
      });
      each(percent_top, [&](const std::smatch& m) { add(m, "accuracy", m[2].str(), num(m[1].str()), "%"); });
      each(times_speedup, [&](const std::smatch& m) { add(m, "speedup", "", num(m[1].str()), "x"); });
    }
  }
  return out;
}

}  // namespace r2r::paper::detail
