// SPDX-License-Identifier: MIT
// `repo2rocm plan SOURCE`: intake -> fingerprint -> rank (through the plugin registry, as the
// pipeline's `rank` stage) -> plan -> Dockerfile (plan_core.hpp does the work).
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "pipeline_choice.hpp"
#include "plan_core.hpp"
#include "plan_output.hpp"
#include "port_job.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/planning/intake.hpp>

#include <unistd.h>

#include <iostream>

namespace r2r::cli {
namespace {}  // namespace

int run_plan(const cli_context& ctx) {
  if (ctx.words.size() != 1) {
    return report_error(
        ctx,
        core::error{core::phase::usage,
                    "usage: repo2rocm plan SOURCE [--commit REF] [--arch GFX] [--out DIR] [--base-image REF]"},
        exit_usage);
  }
  auto paper = run::paper_argument(ctx.option("paper"));
  if (!paper) return report_error(ctx, paper.error(), exit_usage);
  auto arch = run::normalise_arch(ctx.option("arch"));
  if (!arch) return report_error(ctx, arch.error(), exit_usage);
  planning::intake_options io;
  io.commit = ctx.option("commit");
  io.cache_dir =
      ctx.option("cache-dir").empty() ? run::default_cache_dir() : std::filesystem::path(ctx.option("cache-dir"));
  if (!ctx.json && isatty(STDERR_FILENO)) io.progress = ctx.err;
  auto intake = planning::acquire_repository(ctx.words[0], io);
  if (!intake)
    return report_error(ctx, intake.error(), intake.error().where == core::phase::usage ? exit_usage : exit_error);

  // The ranker: the rank stage of --pipeline, else of the built-in configs/pipelines/run.json.
  auto [parsed, label, builtin] = run::choose_run_pipeline(ctx.pipeline, 1);
  if (!parsed.config) return report_error(ctx, pipeline_error(parsed), exit_usage);
  const core::pipeline_config ranking = run::plan_stages_of(*parsed.config);
  auto session = run::open_port_session(
      ctx.search_path(ranking.search_paths, builtin ? std::string() : ranking.file.parent_path().string()), ranking);
  if (!session) return report_failure(ctx, session.error());
  run::plan_request request;
  request.tree = intake->worktree;
  request.source = intake->source;
  request.url = intake->url;
  request.commit = intake->commit;
  request.notes = intake->notes;
  request.content_hash = intake->content_hash;
  request.arch = *arch;
  request.base_image = ctx.option("base-image");
  request.state_dir =
      ctx.option("state-dir").empty() ? run::default_state_dir() : std::filesystem::path(ctx.option("state-dir"));
  request.ranker = session->session->stages().empty() ? nullptr : session->session->stages().front().instance;
  request.paper_model = session->session->resolve(run::paper_rank_instance);
  request.paper = *paper;
  auto planned = run::make_plan(request);
  if (!planned)
    return report_error(ctx, planned.error(), planned.error().where == core::phase::config ? exit_usage : exit_error);
  const auto& fp = planned->fp;
  const auto& plan = planned->plan;

  const std::filesystem::path out =
      ctx.option("out").empty() ? std::filesystem::path("r2r-plan") : std::filesystem::path(ctx.option("out"));
  if (auto written = run::publish_plan(out, *planned, intake->worktree); !written)
    return report_error(ctx, written.error(), written.error().where == core::phase::usage ? exit_usage : exit_error);
  if (ctx.json) {
    *ctx.out << nlohmann::json{{"ok", true},
                               {"out", out.string()},
                               {"commit", fp.commit},
                               {"frameworks", fp.frameworks},
                               {"base_image", plan.at("base_image").at("ref")},
                               {"candidates", plan.at("candidates")},
                               {"workload", plan.at("workload")},
                               {"hazards", plan.at("hazards").size()}}
                    .dump(2)
             << "\n";
  } else {
    run::print_summary(*ctx.out, fp, plan, out);
  }
  return exit_ok;
}

}  // namespace r2r::cli
