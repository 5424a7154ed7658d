// SPDX-License-Identifier: MIT
#include "scale_down_guard.hpp"

#include "r2r_guard_builtin_policy.hpp"
#include "scale_rules.hpp"

#include <optional>
#include <regex>

namespace r2r::plugins::guard {

void from_json(const nlohmann::json& j, scale_down_guard::config& c) {
  c.policy = j.value("policy", nlohmann::json());
  c.max_scan_bytes = j.value("max_scan_bytes", scale_down_guard::config{}.max_scan_bytes);
}

namespace {

constexpr const char* guard_id = "r2r.guard.scale-down";

bool is_config_file(const std::string& path) {
  static const std::regex ext(R"(\.(ya?ml|json|jsonc|py|cfg|toml|ini|conf|sh|bash|env|args)$)", std::regex::icase);
  return std::regex_search(path, ext);
}

/// The simple command of the plan's workload that runs its script or module.
std::optional<shell::simple_command> workload_command(const nlohmann::json& plan) {
  if (!plan.is_object() || !plan.contains("workload") || !plan["workload"].is_object()) return std::nullopt;
  const std::string command = plan["workload"].value("command", "");
  std::optional<shell::simple_command> best;
  for (auto& cmd : shell::analyze(command)) {
    if (cmd.argv.empty()) continue;
    const std::string entry = scale::entry_of(cmd);
    const bool runs_script = entry != shell::program_name(cmd.argv[0]);
    if (!best || runs_script) best = cmd;
    if (runs_script) break;
  }
  return best;
}

bool same_entry(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0 &&
           s[s.size() - tail.size() - 1] == '/';
  };
  return ends_with(a, b) || ends_with(b, a);
}

std::vector<std::string> dataset_lines_sliced(const std::vector<std::string>& lines) {
  static const std::regex data(R"(data|split|sample|example|train|subset)", std::regex::icase);
  static const std::regex select(R"(\.select\(\s*range\(\s*\d+\s*\)\s*\)|\.take\(\s*\d+\s*\)|\.head\(\s*\d+\s*\))");
  std::vector<std::string> out;
  for (const auto& l : lines)
    if ((scale::has_slice(l) && std::regex_search(l, data)) || std::regex_search(l, select)) out.push_back(l);
  return out;
}

std::string shorten(std::string s) {
  if (s.size() > 120) s = s.substr(0, 117) + "...";
  return s;
}

}  // namespace

scale_down_guard::scale_down_guard(const config& cfg, const sdk::host& host)
    : policy_(policy::select(cfg.policy, r2r_guard_builtin::policy, guard_id)),
      files_(cfg.max_scan_bytes),
      max_scan_bytes_(cfg.max_scan_bytes),
      host_(host) {}

std::vector<policy::finding> scale_down_guard::command_findings(const std::string& command, const nlohmann::json& plan,
                                                                bool workload) const {
  std::vector<policy::finding> out;
  const auto planned = workload_command(plan);
  const std::string planned_entry = planned ? scale::entry_of(*planned) : std::string();
  const auto planned_options = planned ? scale::options_of(*planned) : std::map<std::string, std::string>{};
  bool ran_workload = false;
  for (const auto& cmd : shell::analyze(command)) {
    for (auto& f : substitution_findings(cmd)) out.push_back(std::move(f));
    if (cmd.argv.empty()) continue;
    const std::string entry = scale::entry_of(cmd);
    const bool matches = same_entry(entry, planned_entry);
    if (!matches && !(workload && !planned)) continue;
    ran_workload = ran_workload || matches;
    for (const auto& [key, value] : scale::options_of(cmd)) {
      std::string family = scale::family_of(key);
      if (family.empty() && !scale::has_slice(value)) continue;
      std::optional<std::string> before;
      if (const auto it = planned_options.find(key); it != planned_options.end()) before = it->second;
      // Without a plan there is no baseline: only switches and limits that always shrink count.
      if (!planned && family != "debug_mode" && family != "dataset" && key != "fast_dev_run" &&
          !scale::has_slice(value))
        continue;
      const std::string why = scale::scaled_down(family, key, before, value);
      if (why.empty()) continue;
      if (family.empty()) family = "dataset";
      out.push_back({family, "workload --" + key, "the workload " + why});
    }
  }
  if (workload && planned && !ran_workload) {
    out.push_back({"workload", "workload",
                   "run_workload runs `" + shorten(command) + "` instead of the plan's workload `" +
                       shorten(plan["workload"].value("command", "")) + "`"});
  }
  return out;
}

std::vector<policy::finding> scale_down_guard::substitution_findings(const shell::simple_command& cmd) const {
  std::vector<policy::finding> out;
  if (cmd.argv.empty()) return out;
  const std::string name = shell::program_name(cmd.argv[0]);
  if (name != "sed" && name != "perl" && name != "gsed") return out;
  static const std::regex subst(R"re((?:^|[;\s])s([^\w\s\\])((?:\\.|(?!\1).)*)\1((?:\\.|(?!\1).)*)\1)re");
  std::string target;
  for (std::size_t k = 1; k < cmd.argv.size(); ++k)
    if (!cmd.argv[k].empty() && cmd.argv[k][0] != '-' && is_config_file(cmd.argv[k])) target = cmd.argv[k];
  for (const auto& r : cmd.redirects)
    if (r.op == ">" || r.op == ">>" || r.op == ">|") target = r.target;
  if (target.empty()) return out;
  file_change change;
  change.path = target;
  for (std::size_t k = 1; k < cmd.argv.size(); ++k) {
    const std::string& script = cmd.argv[k];
    for (auto it = std::sregex_iterator(script.begin(), script.end(), subst); it != std::sregex_iterator(); ++it) {
      auto unescape = [](std::string s) {
        std::string o;
        for (std::size_t i = 0; i < s.size(); ++i) o += (s[i] == '\\' && i + 1 < s.size()) ? s[++i] : s[i];
        return o;
      };
      change.removed.push_back(unescape((*it)[2].str()));
      change.added.push_back(unescape((*it)[3].str()));
    }
  }
  for (auto& f : edit_findings(change, true)) {
    f.what = name + " " + f.what;
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<policy::finding> scale_down_guard::edit_findings(const file_change& change, bool baseline_known) const {
  std::vector<policy::finding> out;
  if (!is_config_file(change.path)) return out;
  std::map<std::string, std::string> before;
  std::map<std::string, std::string> after;
  for (const auto& l : change.removed)
    for (auto& [k, v] : scale::settings_of_line(l)) before[k] = v;
  for (const auto& l : change.added)
    for (auto& [k, v] : scale::settings_of_line(l)) after[k] = v;
  const std::string unknown =
      baseline_known ? ""
                     : " (the guard has not seen the file's previous content: read_file it first or use apply_patch)";
  for (const auto& [key, value] : after) {
    std::string family = scale::family_of(key);
    if (family.empty() && !scale::has_slice(value)) continue;
    std::optional<std::string> old;
    if (const auto it = before.find(key); it != before.end()) old = it->second;
    const std::string why = scale::scaled_down(family, key, old, value);
    if (why.empty()) continue;
    if (family.empty()) family = "dataset";
    out.push_back({family, change.path + ":" + key, "edits " + change.path + ": " + why + unknown});
  }
  const auto sliced_after = dataset_lines_sliced(change.added);
  if (!sliced_after.empty() && dataset_lines_sliced(change.removed).empty())
    out.push_back({"dataset", change.path,
                   "edits " + change.path + " to use part of the data (" + shorten(sliced_after[0]) + ")" + unknown});
  return out;
}

sdk::guard::decision scale_down_guard::check_action(const sdk::guard::check_request& request) {
  const auto& a = request.action;
  auto head = [this](std::string s) {
    if (s.size() > max_scan_bytes_) s.resize(max_scan_bytes_);
    return s;
  };
  std::vector<policy::finding> findings;
  if (const auto view = view_action(a, files_, max_scan_bytes_)) {
    if (auto d = deny_computed(*view, "scale-down")) return *d;
    findings = command_findings(view->text, request.context.plan, a.type == "run_workload");
  } else if (a.type == "write_file") {
    const std::string path = a.text("path");
    const auto before = files_.content(path);
    findings = edit_findings(line_delta(path, before, head(a.text("content"))), before.has_value());
  } else if (a.type == "apply_patch") {
    for (const auto& change : parse_unified_diff(head(a.text("patch"))))
      for (auto& f : edit_findings(change, true)) findings.push_back(std::move(f));
  }
  auto out = sdk::guard::decision::allow();
  for (const auto& f : findings) {
    auto d = policy::decide(policy_, f, request.context.mode, a.text("reason"));
    if (d.verdict == "deny") {
      R2R_LOG(host_, info, "deny " << a.type << ": " << d.reason);
      d.reason = "scale-down: " + d.reason;
      return d;
    }
    for (auto& e : d.ledger) out.ledger.push_back(std::move(e));
  }
  if (!out.ledger.empty())
    R2R_LOG(host_, info, "allow " << a.type << " with " << out.ledger.size() << " ledger entries");
  return out;
}

sdk::guard::observe_response scale_down_guard::observe(const sdk::guard::observe_request& request) {
  files_.observe(request);
  return {};
}

}  // namespace r2r::plugins::guard
