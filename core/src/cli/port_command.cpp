// SPDX-License-Identifier: MIT
// `repo2rocm port SOURCE`: copies a local CUDA project to OUT/tree, runs the convert stages of the
// port pipeline on the copy (port_chain.cpp) and writes OUT/patch.diff and OUT/convert.json.
// The source is never written. OUT must be empty, absent, or the output of an earlier port.
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "pipeline_choice.hpp"
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

  auto [parsed, label, builtin] = run::choose_port_pipeline(ctx.pipeline);
  if (!parsed.config) return report_error(ctx, pipeline_error(parsed), exit_usage);
  const auto& config = *parsed.config;
  auto opened = run::open_port_session(
      ctx.search_path(config.search_paths, builtin ? std::string() : config.file.parent_path().string()), config);
  if (!opened) return report_failure(ctx, opened.error());
  job->pipeline_file = config.file.string();
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
