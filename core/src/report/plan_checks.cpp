// SPDX-License-Identifier: MIT
#include "plan_checks.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace r2r::report::detail {
namespace {

/// The distribution name of a `pip freeze` line ("Foo_Bar==1.0" -> "foo-bar").
std::string freeze_name(const std::string& line) {
  std::size_t end = 0;
  while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '-' ||
                               line[end] == '_' || line[end] == '.'))
    ++end;
  return normalize_component(line.substr(0, end));
}

bool pinned(const std::string& line) {
  const auto eq = line.find("==");
  if (eq != std::string::npos) return eq + 2 < line.size() && line.find_first_of("*,", eq) == std::string::npos;
  return line.find(" @ ") != std::string::npos;  // a direct reference names one artifact
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

std::vector<std::string> critical_components(const nlohmann::json& plan) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  const auto kb = plan.find("kernel_builds");
  if (kb == plan.end() || !kb->is_array()) return out;
  for (const auto& k : *kb) {
    const std::string name = k.is_object() ? k.value("name", "") : "";
    if (!name.empty() && seen.insert(normalize_component(name)).second) out.push_back(name);
  }
  return out;
}

std::string normalize_command(const std::string& command) {
  std::string out;
  bool space = false;
  for (char c : command) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

std::optional<std::string> planned_workload(const nlohmann::json& plan) {
  const auto w = plan.find("workload");
  if (w == plan.end() || !w->is_object() || !w->contains("command") || !(*w)["command"].is_string())
    return std::nullopt;
  return (*w)["command"].get<std::string>();
}

std::vector<ledger_entry> compare_plan(const nlohmann::json& plan, const std::optional<std::string>& executed_workload,
                                       const std::string& image_used,
                                       const std::optional<std::vector<std::string>>& freeze, pfs_inputs& in) {
  std::vector<ledger_entry> out;
  in.critical_components = critical_components(plan);

  const auto planned = planned_workload(plan);
  in.workload_planned = planned.has_value();
  in.workload_executed = executed_workload.has_value();
  in.workload_matches_plan =
      planned && executed_workload && normalize_command(*planned) == normalize_command(*executed_workload);
  if (executed_workload && !in.workload_matches_plan) {
    out.push_back({"workload", 5, "plan_check:workload",
                   planned ? "the verifier ran `" + *executed_workload + "`; the plan's workload is `" + *planned + "`"
                           : "the verifier ran `" + *executed_workload + "`; the plan names no workload",
                   std::nullopt});
  }

  std::set<std::string> accepted;
  std::string base;
  if (const auto b = plan.find("base_image"); b != plan.end() && b->is_object()) base = b->value("ref", "");
  if (!base.empty()) accepted.insert(base);
  if (const auto c = plan.find("candidates"); c != plan.end() && c->is_array())
    for (const auto& cand : *c)
      if (cand.is_object() && !cand.value("ref", "").empty()) accepted.insert(cand.value("ref", ""));
  in.image_used = image_used;
  in.image_accepted = !image_used.empty() && accepted.count(image_used) != 0;
  if (!image_used.empty() && image_used != base) {
    out.push_back({"base_image", in.image_accepted ? 1 : 2, "plan_check:image",
                   "ran in " + image_used + "; the plan chose " + (base.empty() ? std::string("no image") : base) +
                       (in.image_accepted ? " (a ranked candidate)" : " (not a ranked candidate)"),
                   std::nullopt});
  }

  in.environment_observed = freeze.has_value();
  in.unpinned_packages.clear();
  in.nvidia_packages.clear();
  if (freeze) {
    for (const auto& raw : *freeze) {
      const std::string line = trim(raw);
      if (line.empty() || line[0] == '#') continue;
      const std::string name = freeze_name(line);
      const bool cuda_local = line.find("+cu") != std::string::npos;
      if (name.rfind("nvidia-", 0) == 0 || cuda_local) {
        in.nvidia_packages.push_back(line);
        out.push_back({name.empty() ? line : name, 2, "plan_check:environment",
                       "CUDA build in the final environment (`" + line + "`); it cannot use the AMD GPU",
                       std::nullopt});
      }
      if (!pinned(line)) {
        in.unpinned_packages.push_back(line);
        out.push_back({name.empty() ? line : name, 0, "plan_check:environment",
                       "not pinned to one version in the final environment (`" + line + "`)", std::nullopt});
      }
    }
  }
  return out;
}

}  // namespace r2r::report::detail
