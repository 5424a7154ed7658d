// SPDX-License-Identifier: MIT
#include "steps.hpp"

#include <set>
#include <stdexcept>

namespace r2r::plugins::policy {

std::vector<step> plan_steps(const nlohmann::json& plan, const std::vector<extra_step>& extra) {
  if (!plan.is_object()) throw std::invalid_argument("the plan must be a JSON object (plan.json)");
  std::set<std::string> kernel_steps;
  if (auto kb = plan.find("kernel_builds"); kb != plan.end() && kb->is_array()) {
    for (const auto& k : *kb) {
      if (auto s = k.find("step"); s != k.end() && s->is_string()) kernel_steps.insert(s->get<std::string>());
    }
  }
  std::vector<step> steps;
  if (auto is = plan.find("install_steps"); is != plan.end() && is->is_array()) {
    for (std::size_t i = 0; i < is->size(); ++i) {
      const auto& s = (*is)[i];
      const std::string origin = "install_steps[" + std::to_string(i) + "]";
      const std::string command = s.value("command", std::string());
      if (command.empty()) {
        throw std::invalid_argument("plan " + origin + " has no command; re-run `repo2rocm plan` or fix plan.json");
      }
      const std::string id = s.value("id", origin);
      const std::string kind = s.value("kind", std::string());
      const bool build = kind == "kernel_build" || kind == "rocm_build" || kernel_steps.count(id) > 0;
      steps.push_back(
          {id, origin, nlohmann::json{{"type", build ? "build_kernel" : "run"}, {"command", command}}, false});
    }
  }
  for (std::size_t i = 0; i < extra.size(); ++i) {
    const std::string origin = "extra_steps[" + std::to_string(i) + "]";
    steps.push_back({extra[i].id.empty() ? origin : extra[i].id, origin,
                     nlohmann::json{{"type", extra[i].type}, {"command", extra[i].command}}, false});
  }
  const auto w = plan.find("workload");
  if (w == plan.end() || !w->is_object() || w->value("command", std::string()).empty()) {
    throw std::invalid_argument(
        "the plan has no workload command (plan.json `workload` is null); the playbook runs the plan's workload, so "
        "name one (see the plan's no_workload hazard) before executing");
  }
  steps.push_back({"workload", "workload",
                   nlohmann::json{{"type", "run_workload"}, {"command", w->at("command").get<std::string>()}}, true});
  return steps;
}

std::string kernel_build_command(const std::vector<step>& steps) {
  std::string out;
  for (const auto& s : steps) {
    if (s.action.value("type", std::string()) != "build_kernel") continue;
    out += (out.empty() ? "" : " && ") + s.action.at("command").get<std::string>();
  }
  return out;
}

}  // namespace r2r::plugins::policy
