// SPDX-License-Identifier: MIT
// gather_context and choose_target (target.hpp).
#include <r2r/paper/metrics.hpp>
#include <r2r/paper/target.hpp>
#include <r2r/support/safe_fs.hpp>

#include <algorithm>
#include <set>
#include <sstream>

namespace r2r::paper {
namespace {

bool separator(char c) {
  return std::isspace(static_cast<unsigned char>(c)) ||
         std::string_view("=,:;'\"`/\\()[]{}<>|_.-+*").find(c) != std::string_view::npos;
}

// A name without its decorations: "(ours)", footnote marks, "*".
std::string name_key(std::string name) {
  const auto paren = name.find('(');
  if (paren != std::string::npos && paren > 0) name.resize(paren);
  const std::string key = squash(name);
  return key.size() >= 2 ? key : "";
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool mentions_metric(const candidate& c, const tie_context& ctx) {
  std::vector<std::string> words = {c.metric};
  if (c.metric == "perplexity") words.push_back("ppl");
  if (c.metric == "accuracy") words.push_back("acc");
  for (const auto& w : words) {
    for (std::size_t at = ctx.text.find(w); at != std::string::npos; at = ctx.text.find(w, at + 1)) {
      const bool start = at == 0 || !std::isalnum(static_cast<unsigned char>(ctx.text[at - 1]));
      if (start) return true;
    }
  }
  return false;
}

std::string list_of(const std::vector<candidate>& cands, const std::vector<std::size_t>& which,
                    const std::vector<tie>* ties) {
  std::string out;
  for (std::size_t k = 0; k < which.size() && k < 8; ++k) {
    out += (k ? "; " : "") + describe(cands[which[k]]);
    if (ties != nullptr) out += " [" + (*ties)[which[k]].why + "]";
  }
  if (which.size() > 8) out += "; ... (" + std::to_string(which.size()) + " in all)";
  return out;
}

}  // namespace

void tie_context::add(const std::string& source, const std::string& where) {
  text += lower(source) + "\n";
  sources.emplace_back(where, source);
  std::vector<std::string> parts;
  std::string cur;
  for (std::size_t i = 0; i <= source.size(); ++i) {
    if (i == source.size() || separator(source[i])) {
      if (!cur.empty()) parts.push_back(squash(cur));
      cur.clear();
    } else {
      cur += source[i];
    }
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string joined;
    for (std::size_t n = 0; n < 4 && i + n < parts.size(); ++n) {
      joined += parts[i + n];
      if (joined.size() >= 2) names.emplace(joined, where);
    }
  }
}

tie_context gather_context(const std::filesystem::path& tree, const nlohmann::json& workload) {
  tie_context ctx;
  if (!workload.is_object()) return ctx;
  ctx.command = workload.value("command", std::string());
  ctx.add(ctx.command, "the command");
  std::optional<safe_fs::root> root;
  try {
    root = safe_fs::root::open(tree, "repository");
  } catch (const std::exception&) {
    return ctx;
  }
  static const std::set<std::string> config_ext = {".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".conf"};
  std::istringstream words(ctx.command);
  for (std::string w; words >> w;) {
    if (const auto eq = w.find('='); eq != std::string::npos) w = w.substr(eq + 1);
    w.erase(std::remove_if(w.begin(), w.end(), [](char c) { return c == '\'' || c == '"'; }), w.end());
    if (w.rfind("./", 0) == 0) w = w.substr(2);
    const std::string ext = lower(std::filesystem::path(w).extension().string());
    if (w.empty() || w.front() == '/' || config_ext.count(ext) == 0) continue;
    try {
      ctx.add(safe_fs::read_file(*root, w, 256 * 1024), w);
    } catch (const std::exception&) {  // missing, a link, too large: not part of the context
    }
  }
  const std::string file = workload.value("file", std::string());
  const int at = workload.value("line", 0);
  if (workload.value("source", std::string()) == "readme" && !file.empty() && at > 0) {
    try {
      std::istringstream readme(safe_fs::read_file(*root, file, 1 << 20));
      std::string text;
      int n = 0;
      for (std::string l; std::getline(readme, l);) {
        ++n;
        if (n >= at - 15 && n <= at + 5) text += l + "\n";
      }
      ctx.add(text, file + ":" + std::to_string(std::max(1, at - 15)) + "-" + std::to_string(at + 5));
    } catch (const std::exception&) {
    }
  }
  return ctx;
}

target_choice choose_target(const std::vector<candidate>& candidates, const tie_context& ctx,
                            std::optional<std::size_t> ranked) {
  target_choice out;
  std::vector<std::size_t> tied, all;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    all.push_back(i);
    tie t;
    std::vector<std::string> held, missing;
    for (const auto& [kind, name] : {std::pair<std::string, std::string>{"model", c.model}, {"dataset", c.dataset}}) {
      const std::string key = name_key(name);
      if (key.empty()) continue;
      const auto hit = ctx.names.find(key);
      if (hit != ctx.names.end())
        held.push_back(kind + " '" + name + "' in " + hit->second);
      else
        missing.push_back(kind + " '" + name + "'");
    }
    if (held.empty() && missing.empty()) {
      t.why = "names no model or dataset";
    } else if (!missing.empty()) {
      std::string m;
      for (const auto& x : missing) m += (m.empty() ? "" : " and ") + x;
      t.why = m + " not named in the command, its config or the README run";
    } else {
      t.tied = true;
      for (const auto& x : held) t.why += (t.why.empty() ? "" : "; ") + x;
      tied.push_back(i);
    }
    out.ties.push_back(std::move(t));
  }
  std::string ranking_note;
  if (ranked) {
    if (*ranked < candidates.size() && out.ties[*ranked].tied) {
      out.index = *ranked;
      out.note =
          "the ranking's pick, tied to the workload (" + out.ties[*ranked].why + "): " + describe(candidates[*ranked]);
      return out;
    }
    ranking_note = *ranked < candidates.size() ? " (the ranking's pick " + describe(candidates[*ranked]) +
                                                     " was refused: " + out.ties[*ranked].why + ")"
                                               : " (the ranking's pick is not a candidate and was refused)";
  }
  if (candidates.empty()) {
    out.note =
        "no Mode 2 target: the paper reports no result the extractor recognises (tables of metric "
        "columns, or sentences such as \"we achieve X% top-1 accuracy on Y\")" +
        ranking_note;
    return out;
  }
  if (tied.empty()) {
    out.note = "no Mode 2 target: none of the paper's " + std::to_string(candidates.size()) +
               " candidates is tied to the workload (" + (ctx.command.empty() ? "none" : ctx.command) + ")" +
               ranking_note + ": " + list_of(candidates, all, &out.ties);
    return out;
  }
  std::vector<std::size_t> narrowed;
  for (auto i : tied)
    if (mentions_metric(candidates[i], ctx)) narrowed.push_back(i);
  const auto& pool = narrowed.empty() ? tied : narrowed;
  std::set<std::tuple<std::string, std::string, double, std::string>> distinct;
  for (auto i : pool) {
    const auto& c = candidates[i];
    distinct.emplace(c.metric, c.qualifier, c.value, c.unit);
  }
  if (distinct.size() > 1) {
    out.note = "no Mode 2 target: " + std::to_string(pool.size()) +
               " candidates are tied to the workload and report different results, so none is taken" + ranking_note +
               ": " + list_of(candidates, pool, &out.ties);
    return out;
  }
  out.index = pool.front();
  out.note = "the paper's result tied to the workload (" + out.ties[pool.front()].why +
             (narrowed.empty() || tied.size() == 1 ? std::string() : "; the metric named there") +
             "): " + describe(candidates[pool.front()]) + ranking_note;
  return out;
}

}  // namespace r2r::paper
