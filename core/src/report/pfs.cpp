// SPDX-License-Identifier: MIT
#include <r2r/report/pfs.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace r2r::report {
namespace {

std::string join(const std::vector<std::string>& v, std::size_t max_items = 5) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < max_items; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > max_items) out += ", +" + std::to_string(v.size() - max_items) + " more";
  return out;
}

std::string fixed(double v, int digits = 2) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

pfs_term ran_term(const pfs_inputs& in) {
  std::vector<std::string> runtime;
  for (const auto& k : in.evidence_kinds)
    if (is_runtime_evidence(k) && std::find(runtime.begin(), runtime.end(), k) == runtime.end()) runtime.push_back(k);
  if (in.verdict == "pass" && !runtime.empty())
    return {1, "the verifiers passed with runtime evidence from the workload's process (" + join(runtime) + ")"};
  if (in.verdict == "pass")
    return {0, "the verdict is pass but no runtime evidence (kernel_trace, gpu_process or probe) backs it"};
  if (in.verdict == "no_device")
    return {0,
            "no AMD GPU was available to the verifiers (no_device): the workload was not run on ROCm, so "
            "there is no runnable evidence and no verdict"};
  if (in.verdict == "fail") return {0, "the verifiers failed the run: see the failed checks"};
  return {0, "a verifier could not finish (error): there is no runnable evidence"};
}

pfs_term f_path_term(const pfs_inputs& in, std::vector<component_grade>& grades) {
  std::map<std::string, component_grade> by_name;  // normalized name -> grade
  std::vector<std::string> order;
  auto add = [&](const std::string& name) -> component_grade& {
    const std::string key = normalize_component(name);
    auto [it, fresh] = by_name.try_emplace(key, component_grade{name, 0, 1.0});
    if (fresh) order.push_back(key);
    return it->second;
  };
  for (const auto& c : in.critical_components) add(c);
  for (const auto& e : in.ledger) {
    const auto kind = source_kind(e);
    if (kind != "guard" && kind != "verifier") continue;
    const bool critical = by_name.count(normalize_component(e.component)) != 0;
    if (!critical && (e.level < 1 || e.level > 4)) continue;
    auto& g = add(e.component);
    g.level = std::max(g.level, e.level);
  }
  std::vector<std::string> degraded;
  double sum = 0;
  for (const auto& key : order) {
    auto& g = by_name[key];
    g.grade = path_grade(g.level);
    sum += g.grade;
    if (g.level > 0) degraded.push_back(g.component + " " + level_name(g.level));
    grades.push_back(g);
  }
  if (grades.empty()) return {1, "the plan has no accelerator-critical component and no path degradation was recorded"};
  const double v = sum / static_cast<double>(grades.size());
  return {v, std::to_string(grades.size()) + " accelerator-critical component(s); " +
                 (degraded.empty() ? std::string("all preserved") : "degraded: " + join(degraded)) + "; mean " +
                 fixed(v)};
}

pfs_term a_work_term(const pfs_inputs& in) {
  if (!in.workload_executed) return {0, "no verifier ran a workload itself"};
  std::set<std::string> d5;
  std::vector<std::string> names;
  for (const auto& e : in.ledger)
    if (e.level == 5 && d5.insert(normalize_component(e.component)).second) names.push_back(e.component);
  const double v = std::max(0.0, 1.0 - 0.5 * static_cast<double>(d5.size()));
  if (d5.empty()) return {1, "the plan's workload ran at its intended scale (no D5 entry)"};
  return {v,
          std::string(in.workload_matches_plan ? "the plan's workload ran" : "the workload differs from the plan's") +
              "; experiment semantics changed (D5): " + join(names) + "; 1 - 0.5 x " + std::to_string(d5.size())};
}

pfs_term a_env_term(const pfs_inputs& in) {
  double v = 0;
  std::vector<std::string> why;
  if (!in.environment_observed) {
    why.push_back("final environment not observed (no package list): pinning and NVIDIA wheels unknown (0/3)");
  } else {
    if (in.unpinned_packages.empty()) {
      v += 1.0 / 3;
      why.push_back("every package pinned");
    } else {
      why.push_back("unpinned: " + join(in.unpinned_packages));
    }
    if (in.nvidia_packages.empty()) {
      v += 1.0 / 3;
      why.push_back("no NVIDIA wheels");
    } else {
      why.push_back("NVIDIA wheels present: " + join(in.nvidia_packages));
    }
  }
  if (in.image_accepted) {
    v += 1.0 / 3;
    why.push_back("image " + in.image_used + " is in the ranker's accepted set");
  } else {
    why.push_back("image " + (in.image_used.empty() ? std::string("(unknown)") : in.image_used) +
                  " is not the plan's base image nor a ranked candidate");
  }
  std::string text;
  for (const auto& w : why) text += (text.empty() ? "" : "; ") + w;
  return {v, text};
}

pfs_term d_proc_term(const pfs_inputs& in) {
  std::set<std::string> reported;
  for (const auto& e : in.ledger)
    if (source_kind(e) == "guard") reported.insert(normalize_component(e.component));
  std::vector<std::string> unreported;
  std::size_t total = 0;
  std::set<std::string> seen;
  for (const auto& e : in.ledger) {
    const auto kind = source_kind(e);
    if ((kind != "verifier" && kind != "plan_check") || e.level < 1) continue;
    const std::string key = normalize_component(e.component);
    if (!seen.insert(key).second) continue;
    ++total;
    if (!reported.count(key)) unreported.push_back(e.component + " " + level_name(e.level));
  }
  const double reported_share =
      total == 0 ? 1.0 : static_cast<double>(total - unreported.size()) / static_cast<double>(total);
  const double v = (in.missing_files.empty() ? 0.5 : 0.0) + 0.5 * reported_share;
  std::string why = in.missing_files.empty() ? "bundle complete" : "bundle incomplete: no " + join(in.missing_files);
  if (total == 0)
    why += "; no substitution found by the verifiers or the plan checks";
  else if (unreported.empty())
    why += "; every substitution found by the verifiers or plan checks was reported during the run";
  else
    why += "; not reported during the run: " + join(unreported) + " (" + std::to_string(total - unreported.size()) +
           "/" + std::to_string(total) + " reported)";
  return {v, why};
}

nlohmann::json term_json(const pfs_term& t) {
  return {{"value", t.value}, {"why", t.why}};
}

std::vector<std::string> strings_at(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  if (const auto it = j.find(key); it != j.end() && it->is_array())
    for (const auto& s : *it)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

}  // namespace

bool is_runtime_evidence(const std::string& kind) {
  return kind == "kernel_trace" || kind == "gpu_process" || kind == "probe";
}

double path_grade(int level) {
  static constexpr double table[] = {1.0, 0.9, 0.6, 0.3, 0.0, 0.0};
  return level >= 0 && level <= 5 ? table[level] : 0.0;
}

pfs_breakdown compute_pfs(const pfs_inputs& in) {
  pfs_breakdown b;
  b.ran = ran_term(in);
  b.f_path = f_path_term(in, b.components);
  b.a_work = a_work_term(in);
  b.a_env = a_env_term(in);
  b.d_proc = d_proc_term(in);
  const double raw =
      b.ran.value * (15 + 35 * b.f_path.value + 20 * b.a_work.value + 20 * b.a_env.value + 10 * b.d_proc.value);
  b.score = raw;
  return b;
}

nlohmann::json to_json(const pfs_inputs& in) {
  return {{"critical_components", in.critical_components},
          {"workload_planned", in.workload_planned},
          {"workload_executed", in.workload_executed},
          {"workload_matches_plan", in.workload_matches_plan},
          {"environment_observed", in.environment_observed},
          {"unpinned_packages", in.unpinned_packages},
          {"nvidia_packages", in.nvidia_packages},
          {"image_accepted", in.image_accepted},
          {"image_used", in.image_used},
          {"missing_files", in.missing_files}};
}

core::result<pfs_inputs> pfs_inputs_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return core::fail(core::phase::config, "report.json pfs.inputs: expected an object");
  pfs_inputs in;
  for (const char* key :
       {"workload_planned", "workload_executed", "workload_matches_plan", "environment_observed", "image_accepted"}) {
    if (!j.contains(key) || !j[key].is_boolean())
      return core::fail(core::phase::config, std::string("report.json pfs.inputs.") + key + ": expected a boolean");
  }
  in.critical_components = strings_at(j, "critical_components");
  in.workload_planned = j["workload_planned"].get<bool>();
  in.workload_executed = j["workload_executed"].get<bool>();
  in.workload_matches_plan = j["workload_matches_plan"].get<bool>();
  in.environment_observed = j["environment_observed"].get<bool>();
  in.unpinned_packages = strings_at(j, "unpinned_packages");
  in.nvidia_packages = strings_at(j, "nvidia_packages");
  in.image_accepted = j["image_accepted"].get<bool>();
  in.image_used = j.value("image_used", "");
  in.missing_files = strings_at(j, "missing_files");
  return in;
}

nlohmann::json to_json(const pfs_breakdown& b) {
  nlohmann::json components = nlohmann::json::array();
  for (const auto& c : b.components)
    components.push_back({{"component", c.component}, {"level", level_name(c.level)}, {"grade", c.grade}});
  return {{"score", b.score},
          {"formula", "Ran x (15 + 35 F_path + 20 A_work + 20 A_env + 10 D_proc)"},
          {"ran", term_json(b.ran)},
          {"f_path", term_json(b.f_path)},
          {"a_work", term_json(b.a_work)},
          {"a_env", term_json(b.a_env)},
          {"d_proc", term_json(b.d_proc)},
          {"components", components}};
}

}  // namespace r2r::report
