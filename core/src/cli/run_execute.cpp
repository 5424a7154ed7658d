// SPDX-License-Identifier: MIT
// The execute stage of `repo2rocm run`: the guarded executor (r2r::executor) on the ported
// workspace, in the sandbox the environment stage chose, with the run pipeline's guards and its
// policy (r2r.policy.playbook when the pipeline names none). The executor's own run directory is
// RUN_DIR/execute; a run directory that already holds an executor record is resumed, never
// started again. The stage succeeds whatever the executor's outcome: the verifiers own the verdict.
#include "run_hooks_parts.hpp"

#include <r2r/core/pipeline_session.hpp>
#include <r2r/executor/executor.hpp>

#include <fstream>

namespace r2r::cli::run {
namespace {

using nlohmann::json;

json stage_entry(const core::pipeline_stage& s) {
  return json{{"stage", s.stage}, {"name", s.name}, {"use", s.plugin.use}, {"config", s.plugin.config}};
}

/// The executor's pipeline: the run pipeline's instances, guards and policy, and a sandbox stage on
/// the plugin the environment stage chose.
json executor_pipeline(const run_context& ctx) {
  json stages = json::array();
  bool has_policy = false;
  for (const auto& s : ctx.pipeline->stages) {
    if (s.stage == "policy") has_policy = true;
    if (s.stage == "policy" || s.stage == "guard") stages.push_back(stage_entry(s));
  }
  if (!has_policy)
    stages.push_back(
        json{{"stage", "policy"}, {"name", "playbook"}, {"use", "r2r.policy.playbook"}, {"config", json::object()}});
  stages.push_back(
      json{{"stage", "sandbox"}, {"name", "sandbox"}, {"use", ctx.sandbox.plugin_id}, {"config", ctx.sandbox.config}});
  // The run pipeline's instances (the `llm` a policy calls, for example) are services of these stages.
  json instances = json::object();
  for (const auto& [name, use] : ctx.pipeline->instances) {
    json entry{{"use", use.use}, {"config", use.config}};
    if (use.log_level) entry["log_level"] = *use.log_level;
    instances[name] = std::move(entry);
  }
  json out{{"version", 1},
           {"name", "run-execute"},
           {"description", "derived by `repo2rocm run` from " + ctx.pipeline->file.string()},
           {"pipeline", stages}};
  if (!instances.empty()) out["instances"] = std::move(instances);
  return out;
}

}  // namespace

stage_result run_execute(run_context& ctx) {
  stage_result r;
  const auto dir = ctx.run_dir / "execute";
  const auto pipeline_file = ctx.run_dir / "execute.pipeline.json";
  const bool resuming = std::filesystem::exists(dir / "run.json");
  if (!resuming) {
    std::filesystem::remove_all(dir);
    std::ofstream(pipeline_file) << executor_pipeline(ctx).dump(2) << "\n";
  }
  auto parsed = core::parse_pipeline_file(pipeline_file);
  if (!parsed.config) {
    r.status = "failed";
    r.message = "the executor pipeline " + pipeline_file.string() + " is invalid: " +
                (parsed.problems.empty() ? std::string("unknown problem") : parsed.problems.front().to_string());
    return r;
  }
  auto session = core::pipeline_session::create(*parsed.config, *ctx.registry);
  if (!session) {
    r.status = "failed";
    r.message = "cannot start the executor's plugins: " + session.error().to_string();
    return r;
  }
  core::result<executor::run_outcome> outcome;
  if (resuming) {
    ctx.progress->stage_progress("execute", "resuming from " + (dir / "trajectory.jsonl").string());
    outcome = executor::resume(**session, dir, {},
                               [&](const std::string& line) { ctx.progress->stage_progress("execute", line); });
  } else {
    executor::run_options o;
    o.run_dir = dir;
    o.pipeline_file = pipeline_file;
    o.plan = ctx.plan;
    o.workspace_source = ctx.workspace_dir();
    o.image = ctx.sandbox.image;
    o.mode = ctx.options.mode;
    o.arch = ctx.options.arch;
    o.sandbox_create = sandbox_create_request(ctx);
    outcome = executor::run(**session, o);
  }
  if (!outcome) {
    r.status = "failed";
    r.message = "the executor stopped with an error: " + outcome.error().to_string();
    return r;
  }
  r.message = std::string(executor::to_string(outcome->kind)) + " after " + std::to_string(outcome->turns) +
              " turns: " + outcome->reason;
  r.results = json{{"outcome", executor::to_string(outcome->kind)},
                   {"reason", outcome->reason},
                   {"turns", outcome->turns},
                   {"dir", dir.string()}};
  r.outputs = {"execute", "execute.pipeline.json"};
  return r;
}

}  // namespace r2r::cli::run
