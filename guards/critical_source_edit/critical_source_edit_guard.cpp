// SPDX-License-Identifier: MIT
#include "critical_source_edit_guard.hpp"

#include "edit_commands.hpp"
#include "r2r_guard_builtin_policy.hpp"

#include <r2r/support/shell.hpp>

#include <regex>
#include <set>

namespace r2r::plugins::guard {

void from_json(const nlohmann::json& j, critical_source_edit_guard::config& c) {
  c.policy = j.value("policy", nlohmann::json());
  c.max_scan_bytes = j.value("max_scan_bytes", critical_source_edit_guard::config{}.max_scan_bytes);
}

namespace {

constexpr const char* guard_id = "r2r.guard.critical-source-edit";

std::string stem(const std::string& path) {
  const auto slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return name.substr(0, name.find('.'));
}

}  // namespace

critical_source_edit_guard::critical_source_edit_guard(const config& cfg, const sdk::host& host)
    : policy_(policy::select(cfg.policy, r2r_guard_builtin::policy, guard_id)),
      files_(cfg.max_scan_bytes),
      max_scan_bytes_(cfg.max_scan_bytes),
      host_(host) {}

std::string critical_source_edit_guard::kind_of(const std::string& path, const critical::plan_facts& facts) const {
  const auto known = files_.content(path);
  const auto kind = critical::critical_kind(path, known ? split_lines(*known) : std::vector<std::string>{}, facts);
  if (!kind.empty() || known) return kind;
  static const std::regex attention_name(R"((attn|attention|flash)[^/]*\.py$)", std::regex::icase);
  return std::regex_search(path, attention_name) ? "attention code" : "";
}

std::vector<critical_source_edit_guard::graded> critical_source_edit_guard::command_grades(
    const std::string& command, const critical::plan_facts& facts, std::optional<std::string>& hidden) const {
  std::vector<graded> out;
  for (const auto& cmd : shell::analyze(command)) {
    std::set<std::string> handled;
    for (auto e : critical::edits_of(cmd)) {
      if (handled.count(e.path)) continue;
      const std::string kind = kind_of(e.path, facts);
      switch (e.how) {
        case critical::command_edit::kind::substitution: {
          if (const auto known = files_.content(e.path))
            for (auto& l : split_lines(*known)) e.change.context.push_back(std::move(l));
          for (auto& g : critical::grade_change(e.change, true, facts)) {
            g.what = e.tool + " " + g.what;
            out.push_back({e.path, std::move(g)});
          }
          if (!kind.empty() && out.empty())
            out.push_back({e.path, {"port", e.tool + " edits the " + kind + " " + e.path}});
          break;
        }
        case critical::command_edit::kind::rename:
          if (!kind.empty() && stem(e.path) == stem(e.target) && !kind_of(e.target, facts).empty()) {
            out.push_back({e.path, {"port", e.tool + " renames the " + kind + " " + e.path + " to " + e.target}});
            handled.insert(e.path);
            handled.insert(e.target);
          }
          break;
        case critical::command_edit::kind::removal:
          if (!kind.empty())
            out.push_back({e.path,
                           {kind == "kernel source" ? "kernel_replaced" : "acceleration_disabled",
                            e.tool + " removes the " + kind + " " + e.path}});
          break;
        case critical::command_edit::kind::overwrite:
          if (!kind.empty() && !hidden) hidden = e.tool + " overwrites the " + kind + " " + e.path;
          break;
      }
    }
  }
  return out;
}

sdk::guard::decision critical_source_edit_guard::check_action(const sdk::guard::check_request& request) {
  const auto& a = request.action;
  auto head = [this](std::string s) {
    if (s.size() > max_scan_bytes_) s.resize(max_scan_bytes_);
    return s;
  };
  const auto facts = critical::facts_of(request.context.plan);
  std::vector<graded> grades;
  std::optional<std::string> hidden;
  if (a.type == "write_file") {
    const std::string path = a.text("path");
    const auto before = files_.content(path);
    for (auto& g : critical::grade_change(line_delta(path, before, head(a.text("content"))), before.has_value(), facts))
      grades.push_back({path, std::move(g)});
  } else if (a.type == "apply_patch") {
    for (auto& change : parse_unified_diff(head(a.text("patch")))) {
      if (const auto known = files_.content(change.path))
        for (auto& l : split_lines(*known)) change.context.push_back(std::move(l));
      for (auto& g : critical::grade_change(change, true, facts)) grades.push_back({change.path, std::move(g)});
    }
  } else if (const auto view = view_action(a, files_, max_scan_bytes_)) {
    if (auto d = deny_computed(*view, "critical source edit")) return *d;
    grades = command_grades(view->text, facts, hidden);
  }
  if (hidden) {
    R2R_LOG(host_, info, "deny " << a.type << ": " << *hidden);
    return sdk::guard::decision::deny(
        "critical source edit: " + *hidden + " with content the command does not show",
        "edit the file with write_file or apply_patch (with a `reason`), so the change can be checked and recorded");
  }
  auto out = sdk::guard::decision::allow();
  for (const auto& g : grades) {
    auto d = policy::decide(policy_, {g.grade.component, g.path, g.grade.what}, request.context.mode, a.text("reason"));
    if (d.verdict == "deny") {
      d.reason = "critical source edit: " + d.reason;
      R2R_LOG(host_, info, "deny " << a.type << ": " << d.reason);
      return d;
    }
    for (auto& e : d.ledger) out.ledger.push_back(std::move(e));
  }
  if (!out.ledger.empty())
    R2R_LOG(host_, info, "allow " << a.type << " with " << out.ledger.size() << " ledger entries");
  return out;
}

sdk::guard::observe_response critical_source_edit_guard::observe(const sdk::guard::observe_request& request) {
  files_.observe(request);
  return {};
}

}  // namespace r2r::plugins::guard
