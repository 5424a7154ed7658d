// SPDX-License-Identifier: MIT
// `repo2rocm port SOURCE`: copies a local CUDA project to OUT/tree, runs the convert stages of the
// port pipeline on the copy (port_chain.cpp) and writes OUT/patch.diff and OUT/convert.json.
// The source is never written. OUT must be empty, absent, or the output of an earlier port.
#include "builtin_pipelines.hpp"
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "port_args.hpp"
#include "port_output.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>

#include <filesystem>

namespace r2r::cli {

int run_port(const cli_context& ctx) {
  if (ctx.words.size() != 1) {
    return report_error(ctx,
                        core::error{core::phase::usage,
                                    "usage: repo2rocm port SOURCE [--arch gfx90a,gfx942] [--rocm VERSION] [--out DIR]"},
                        exit_usage);
  }
  auto job = run::port_job_from({ctx.words[0], ctx.arch, ctx.rocm, ctx.out_dir});
  if (!job) return report_error(ctx, job.error(), exit_usage);

  // The pipeline: --pipeline FILE, or the built-in copy of configs/pipelines/port.json.
  auto parsed = ctx.pipeline.empty()
                    ? core::parse_pipeline_text(generated::port_pipeline, "(built-in) configs/pipelines/port.json")
                    : core::parse_pipeline_file(ctx.pipeline);
  if (!parsed.config) return report_error(ctx, pipeline_error(parsed), exit_usage);
  auto opened = run::open_port_session(
      ctx.search_path(parsed.config->search_paths,
                      ctx.pipeline.empty() ? std::string() : parsed.config->file.parent_path().string()),
      *parsed.config);
  if (!opened) return report_failure(ctx, opened.error());
  job->pipeline_file = parsed.config->file.string();
  auto ported = run::port_to_out(*opened->session, *job);
  if (!ported) return report_failure(ctx, ported.error());
  const nlohmann::json& report = *ported;
  const auto& source = job->source;
  const auto& out = job->out_dir;

  if (ctx.json) {
    nlohmann::json brief{{"ok", true},
                         {"source", source.string()},
                         {"out", out.string()},
                         {"tree", (out / "tree").string()},
                         {"patch", (out / "patch.diff").string()},
                         {"report", (out / "convert.json").string()},
                         {"summary", report.at("summary")},
                         {"stages", report.at("stages")}};
    *ctx.out << brief.dump(2) << "\n";
  } else {
    run::print_port_summary(*ctx.out, report, source, out);
  }
  return exit_ok;
}

}  // namespace r2r::cli
