// SPDX-License-Identifier: MIT
// `repo2rocm plan SOURCE`: intake -> fingerprint -> rank (through the plugin registry, as the
// pipeline's `rank` stage) -> plan -> Dockerfile (plan_core.hpp does the work).
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "plan_core.hpp"
#include "plan_output.hpp"

#include "../report/atomic_dir.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/planning/intake.hpp>

#include <unistd.h>

#include <iostream>
#include <optional>

namespace r2r::cli {
namespace {

std::string option(const cli_context& ctx, const std::string& name) {
  auto it = ctx.options.find(name);
  return it == ctx.options.end() ? std::string() : it->second;
}

/// OUT is replaced as a whole, so it must be absent, empty or an earlier plan's output.
core::result<void> check_plan_out(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec))
      return core::fail(core::phase::usage, "--out " + out.string() + " exists and is not a directory");
    if (!fs::is_empty(out, ec) && !fs::exists(out / "plan.json", ec))
      return core::fail(core::phase::usage, "--out " + out.string() +
                                                " is not empty and holds no earlier plan (no plan.json); choose "
                                                "another directory or empty it");
  }
  const auto parent = fs::absolute(out).lexically_normal().parent_path();
  fs::create_directories(parent, ec);
  if (ec) return core::fail(core::phase::io, "cannot create " + parent.string() + ": " + ec.message());
  return {};
}

}  // namespace

int run_plan(const cli_context& ctx) {
  if (ctx.words.size() != 1) {
    return report_error(
        ctx,
        core::error{core::phase::usage,
                    "usage: repo2rocm plan SOURCE [--commit REF] [--arch GFX] [--out DIR] [--base-image REF]"},
        exit_usage);
  }
  auto arch = normalise_arch(option(ctx, "arch"));
  if (!arch) return report_error(ctx, arch.error(), exit_usage);
  planning::intake_options io;
  io.commit = option(ctx, "commit");
  io.cache_dir =
      option(ctx, "cache-dir").empty() ? default_cache_dir() : std::filesystem::path(option(ctx, "cache-dir"));
  if (!ctx.json && isatty(STDERR_FILENO)) io.progress = ctx.err;
  auto intake = planning::acquire_repository(ctx.words[0], io);
  if (!intake)
    return report_error(ctx, intake.error(), intake.error().where == core::phase::usage ? exit_usage : exit_error);

  std::optional<core::pipeline_config> pipeline;
  if (!ctx.pipeline.empty()) {
    auto parsed = core::parse_pipeline_file(ctx.pipeline);
    if (!parsed.config)
      return report_error(ctx, core::error{core::phase::config, parsed.problems.front().to_string(), {}, ctx.pipeline},
                          exit_usage);
    pipeline = parsed.config;
  }
  plan_request request;
  request.tree = intake->worktree;
  request.source = intake->source;
  request.url = intake->url;
  request.commit = intake->commit;
  request.notes = intake->notes;
  request.content_hash = intake->content_hash;
  request.arch = *arch;
  request.base_image = option(ctx, "base-image");
  request.state_dir =
      option(ctx, "state-dir").empty() ? default_state_dir() : std::filesystem::path(option(ctx, "state-dir"));
  request.pipeline = pipeline ? &*pipeline : nullptr;
  if (!option(ctx, "paper").empty()) request.paper = std::filesystem::absolute(option(ctx, "paper"));
  auto planned = make_plan(ctx, request);
  if (!planned)
    return report_error(ctx, planned.error(), planned.error().where == core::phase::config ? exit_usage : exit_error);
  const auto& fp = planned->fp;
  const auto& plan = planned->plan;

  const std::filesystem::path out =
      option(ctx, "out").empty() ? std::filesystem::path("r2r-plan") : std::filesystem::path(option(ctx, "out"));
  if (auto ready = check_plan_out(out); !ready) return report_error(ctx, ready.error(), exit_usage);
  // Written into OUT.tmp-XXXXXX and renamed over OUT when complete: a plan killed at any point
  // leaves the earlier output (or none), never a torn one.
  auto staged = report::detail::staged_dir::create(out);
  if (!staged) return report_error(ctx, staged.error(), exit_error);
  if (auto written = write_plan_files(staged->path(), *planned, intake->worktree); !written)
    return report_error(ctx, written.error(), exit_error);
  if (auto published = staged->publish(); !published) return report_error(ctx, published.error(), exit_error);
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
    print_summary(*ctx.out, fp, plan, out);
  }
  return exit_ok;
}

}  // namespace r2r::cli
