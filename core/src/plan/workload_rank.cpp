// SPDX-License-Identifier: MIT
#include "workload_rank.hpp"

#include "fingerprint/text_util.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace r2r::planning::detail {
namespace {

using nlohmann::json;

struct scored {
  const entry_point* e = nullptr;
  int score = 0;
  std::vector<std::string> reasons;
  std::size_t order = 0;  // position in the fingerprint (file order, then line)
};

/// The script or module a command runs ("scripts/train.sh", "pkg.train"), from its words.
std::string target_of(const entry_point& e) {
  const auto words = text::shell_words(e.command);
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "-m") return words[i + 1];
  }
  for (const auto& w : words) {
    if (text::contains(w, ".py") || text::contains(w, ".sh")) return w;
  }
  return e.command;
}

/// A helper, not a run: tests of the repository, downloads, setup, API clients, format/lint.
std::string helper_kind(const entry_point& e, const std::string& target) {
  const auto words = text::alnum_words(target);
  const auto has = [&](std::initializer_list<std::string_view> options) {
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) {
      return std::any_of(options.begin(), options.end(), [&](std::string_view o) { return w == o; });
    });
  };
  if (has({"download", "downloads", "fetch", "get", "wget"})) return "a download script";
  if (has({"setup", "install", "env", "environment", "build", "compile", "clean", "docker"})) return "a setup script";
  if (has({"client", "api", "request", "requests", "curl", "openai"})) return "an API-client script";
  if (has({"format", "lint", "style", "precommit"})) return "a code-style script";
  if (e.launcher == "shell" && has({"test", "tests", "unittest", "ci"})) return "the repository's test script";
  if (has({"convert", "export", "upload", "push"})) return "a conversion/export helper";
  return {};
}

scored score(const entry_point& e) {
  scored s;
  s.e = &e;
  if (e.source == "readme") {
    s.score += 40;
    s.reasons.push_back("documented in " + e.file + ":" + std::to_string(e.line) + " (+40)");
  } else if (e.source == "scripts") {
    s.score += 20;
    s.reasons.push_back("a repository script " + e.file + " (+20)");
  } else {
    s.reasons.push_back("a __main__ file without required arguments " + e.file + " (+0)");
  }
  static const std::pair<const char*, int> kinds[] = {{"train", 30}, {"infer", 20}, {"eval", 15}, {"other", 0}};
  for (const auto& [k, points] : kinds) {
    if (e.kind != k) continue;
    s.score += points;
    s.reasons.push_back(std::string(k == std::string("other") ? "neither training, inference nor evaluation"
                                                              : std::string("a ") + k + " run") +
                        " (+" + std::to_string(points) + ")");
  }
  const std::string target = target_of(e);
  if (e.own && e.launcher != "shell") {
    s.score += 10;
    s.reasons.push_back(std::string(e.launcher == "python-module" ? "the repository's module entry point "
                                                                  : "the repository's own entry point ") +
                        target + " (+10)");
  }
  if (const auto helper = helper_kind(e, target); !helper.empty()) {
    s.score -= 60;
    s.reasons.push_back(helper + " (" + target + "), not a documented run (-60)");
  }
  return s;
}

json alternative_json(const scored& a, const scored& best) {
  std::string why;
  if (a.score == best.score) {
    why = "same score; " + best.e->file + ":" + std::to_string(best.e->line) + " is documented first";
  } else {
    why = "scores " + std::to_string(a.score) + " against " + std::to_string(best.score);
    for (const auto& r : a.reasons) {
      if (r.find("(-") != std::string::npos) why += "; " + r;
    }
  }
  return {{"command", a.e->command}, {"kind", a.e->kind}, {"source", a.e->source}, {"file", a.e->file},
          {"line", a.e->line},       {"score", a.score},  {"reasons", a.reasons},  {"why_not", why}};
}

}  // namespace

json rank_workloads(const fingerprint& fp, json& rejected) {
  std::vector<scored> candidates;
  for (std::size_t i = 0; i < fp.entry_points.size(); ++i) {
    const auto& e = fp.entry_points[i];
    if (!e.runnable) {
      rejected.push_back({{"command", e.command}, {"why_not", e.why_not}, {"file", e.file}, {"line", e.line}});
      continue;
    }
    if (e.kind == "other" && e.source != "readme") continue;  // a stray script is not the official workload
    auto s = score(e);
    s.order = i;
    candidates.push_back(std::move(s));
  }
  if (candidates.empty()) return nullptr;
  std::stable_sort(candidates.begin(), candidates.end(), [](const scored& a, const scored& b) {
    return a.score != b.score ? a.score > b.score : a.order < b.order;
  });
  const scored& best = candidates.front();
  const entry_point& w = *best.e;
  std::string reason = w.source == "readme" ? "the README's " + w.kind + " command"
                       : w.source == "scripts"
                           ? "the repository's " + w.kind + " script"
                           : "a " + w.kind + " script with a __main__ block and no required arguments";
  if (candidates.size() > 1) {
    reason += ", ranked first of " + std::to_string(candidates.size()) +
              " runnable commands (documented runs before scripts; training, then inference, then evaluation; the "
              "repository's own entry points before helpers such as tests, downloads and API clients)";
  }
  json alternatives = json::array();
  for (std::size_t i = 1; i < candidates.size(); ++i) alternatives.push_back(alternative_json(candidates[i], best));
  return {{"command", w.command},    {"kind", w.kind},
          {"launcher", w.launcher},  {"source", w.source},
          {"file", w.file},          {"line", w.line},
          {"reason", reason},        {"score", best.score},
          {"reasons", best.reasons}, {"alternatives", alternatives}};
}

}  // namespace r2r::planning::detail
