// SPDX-License-Identifier: MIT
// The execute stage of `repo2rocm run`: the guarded executor (r2r::executor) on the ported
// workspace, on the run's pipeline session: its policy stage proposes, every guard stage judges,
// the sandbox stage the environment stage chose runs. The executor's own run directory is
// RUN_DIR/execute; a run directory that already holds an executor record is resumed, never
// started again. The stage succeeds whatever the executor's outcome: the verifiers own the verdict.
#include "run_stages.hpp"

#include <r2r/core/pipeline_session.hpp>
#include <r2r/executor/executor.hpp>

namespace r2r::run {

using nlohmann::json;

stage_result run_execute(run_context& ctx) {
  stage_result r;
  const auto dir = ctx.run_dir / "execute";
  const bool resuming = std::filesystem::exists(dir / "run.json");
  core::result<executor::run_outcome> outcome;
  if (resuming) {
    ctx.progress->stage_progress("execute", "resuming from " + (dir / "trajectory.jsonl").string());
    outcome = executor::resume(*ctx.session, dir, {},
                               [&](const std::string& line) { ctx.progress->stage_progress("execute", line); });
  } else {
    std::filesystem::remove_all(dir);
    executor::run_options o;
    o.run_dir = dir;
    o.pipeline_file = ctx.run_dir / "pipeline.json";  // the resolved run pipeline; resume checks its hash
    o.plan = ctx.plan;
    o.workspace_source = ctx.workspace_dir();
    o.image = ctx.sandbox.image;
    o.mode = ctx.options.mode;
    o.arch = ctx.options.arch;
    o.sandbox_create = sandbox_create_request(ctx);
    o.sandbox_stage = ctx.sandbox.stage;
    outcome = executor::run(*ctx.session, o);
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
  r.outputs = {"execute"};
  return r;
}

}  // namespace r2r::run
