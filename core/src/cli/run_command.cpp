// SPDX-License-Identifier: MIT
// `repo2rocm run SOURCE`: parses the options, hands them with the pipeline file to the run engine
// (r2r/run/engine.hpp, docs/run.md) and exits with its code.
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "pipeline_choice.hpp"
#include "plan_core.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/run/engine.hpp>

#include <unistd.h>

#include <regex>

namespace r2r::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* run_usage =
    "usage: repo2rocm run SOURCE [--mode 0|1|2] [--pipeline FILE] [--gpu N] [--arch GFX] [--run-dir DIR] "
    "[--commit REF] [--base-image REF] [--no-pull] [--paper FILE|URL] [--until STAGE] [--json]";

int usage_error(const cli_context& ctx, const std::string& message) {
  return report_error(ctx, core::error{core::phase::usage, message + "\n" + run_usage}, exit_usage);
}

}  // namespace

int run_run(const cli_context& ctx) {
  if (ctx.words.size() != 1) return usage_error(ctx, "run takes exactly one SOURCE (a git URL or a local repository)");
  run::engine_options e;
  run::run_options& o = e.run;
  o.source = ctx.words[0];
  o.commit = ctx.option("commit");
  o.base_image = ctx.option("base-image");
  o.no_pull = !ctx.option("no-pull").empty();
  if (const std::string mode = ctx.option("mode"); !mode.empty()) {
    if (mode != "0" && mode != "1" && mode != "2")
      return usage_error(ctx,
                         "--mode takes 0 (baseline), 1 (functional) or 2 (functional + metrics); found '" + mode + "'");
    o.mode = mode[0] - '0';
  }
  if (const std::string gpu = ctx.option("gpu"); !gpu.empty()) {
    if (!std::regex_match(gpu, std::regex("^[0-9]{1,4}$")))
      return usage_error(ctx,
                         "--gpu takes a GPU index such as 0 (see `repo2rocm sandbox doctor`); found '" + gpu + "'");
    o.gpu = std::stoi(gpu);
  }
  auto arch = run::normalise_arch(ctx.option("arch"));
  if (!arch) return usage_error(ctx, arch.error().message);
  o.arch = *arch;
  o.cache_dir = ctx.option("cache-dir").empty() ? run::default_cache_dir() : fs::path(ctx.option("cache-dir"));
  o.state_dir = ctx.option("state-dir").empty() ? run::default_state_dir() : fs::path(ctx.option("state-dir"));
  if (!ctx.option("run-dir").empty()) o.run_dir = fs::absolute(ctx.option("run-dir")).lexically_normal();
  auto paper = run::paper_argument(ctx.option("paper"));
  if (!paper) return usage_error(ctx, paper.error().message);
  o.paper = *paper;
  e.last_stage = ctx.option("until");

  // The pipeline: --pipeline FILE, else the built-in run.json (mode 2: mode2.json, which adds the
  // metrics verifier).
  auto [parsed, label, builtin] = run::choose_run_pipeline(ctx.pipeline, o.mode);
  if (!parsed.config) return report_error(ctx, pipeline_error(parsed), exit_usage);
  e.pipeline_label = builtin ? label : parsed.config->file.string();
  e.search_path = ctx.search_path(parsed.config->search_paths,
                                  builtin ? std::string() : parsed.config->file.parent_path().string());
  e.pipeline = std::move(*parsed.config);
  e.live = !ctx.json && isatty(STDERR_FILENO);
  e.out = ctx.out;
  e.err = ctx.err;
  auto engine = run::engine::create(std::move(e));
  if (!engine) {
    const auto where = engine.error().where;
    if (where == core::phase::usage) return usage_error(ctx, engine.error().message);
    return report_error(ctx, engine.error(), where == core::phase::config ? exit_usage : exit_error);
  }
  return (*engine)->run().code;
}

}  // namespace r2r::cli
