// SPDX-License-Identifier: MIT
// The playbook's ordered steps, read from a plan (configs/schema/plan.schema.json): every
// install step in plan order (a kernel_build or rocm_build step, or one named by kernel_builds[].step,
// becomes a build_kernel action, the others run actions), then the configured extra steps, then
// run_workload with the plan's workload command. kernel_builds entries without a step (JIT and
// Triton kernels) compile when the workload runs and add no step.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace r2r::plugins::policy {

struct step {
  std::string id;
  std::string origin;  // where it comes from: "install_steps[2]", "extra_steps[0]", "workload"
  nlohmann::json action;
  bool workload = false;
};

struct extra_step {
  std::string id;
  std::string type = "run";  // run | build_kernel
  std::string command;
};

/// The steps of `plan`. Throws std::invalid_argument when the plan has no workload or a step has
/// no command (the message names the field and what to do).
std::vector<step> plan_steps(const nlohmann::json& plan, const std::vector<extra_step>& extra);

/// The commands of the build_kernel steps joined with " && " (empty when there are none).
std::string kernel_build_command(const std::vector<step>& steps);

}  // namespace r2r::plugins::policy
