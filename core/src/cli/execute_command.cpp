// SPDX-License-Identifier: MIT
// `repo2rocm execute` and `repo2rocm resume`: the guarded executor on its own (docs/executor.md).
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "port_job.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/executor/executor.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <ostream>
#include <variant>

namespace r2r::cli {
namespace {

int usage_error(const cli_context& ctx, const std::string& message) {
  return report_error(ctx, core::error{core::phase::usage, message}, exit_usage);
}

// Parses, validates and instantiates a pipeline; returns the exit code on failure.
std::variant<run::port_session, int> load_pipeline(const cli_context& ctx, const std::string& file) {
  auto parsed = core::parse_pipeline_file(file);
  if (!parsed.config) return report_error(ctx, pipeline_error(parsed, file), exit_usage);
  auto opened = run::open_port_session(
      ctx.search_path(parsed.config->search_paths, parsed.config->file.parent_path().string()), *parsed.config);
  if (!opened) return report_failure(ctx, opened.error());
  return std::move(*opened);
}

int print_outcome(const cli_context& ctx, const executor::run_outcome& o) {
  if (ctx.json) {
    *ctx.out << nlohmann::json{{"outcome", executor::to_string(o.kind)},
                               {"reason", o.reason},
                               {"turns", o.turns},
                               {"run_dir", o.run_dir.string()}}
                    .dump(2)
             << "\n";
  } else {
    *ctx.out << "outcome: " << executor::to_string(o.kind) << " after " << o.turns << " turns\nreason: " << o.reason
             << "\ntrajectory: " << (o.run_dir / "trajectory.jsonl").string() << "\n";
  }
  return o.kind == executor::outcome_kind::claimed ? exit_ok : exit_error;
}

}  // namespace

int run_execute(const cli_context& ctx) {
  if (!ctx.words.empty())
    return usage_error(ctx, "execute takes no positional arguments; see `repo2rocm execute --help`");
  const auto opt = [&](const char* name) { return ctx.option(name); };
  if (opt("plan").empty() || ctx.pipeline.empty() || opt("run-dir").empty()) {
    return usage_error(ctx, "execute needs --plan PLAN.json, --pipeline FILE and --run-dir DIR");
  }
  executor::run_options options;
  auto turns = ctx.number("max-turns", options.caps.max_turns);
  auto seconds = ctx.number("max-seconds", options.caps.max_seconds);
  auto mode = ctx.number("mode", options.mode);
  if (!turns || !seconds || !mode)
    return report_failure(ctx, !turns ? turns.error() : !seconds ? seconds.error() : mode.error());
  options.caps.max_turns = *turns;
  options.caps.max_seconds = *seconds;
  options.mode = *mode;
  std::ifstream plan_in(opt("plan"));
  if (!plan_in)
    return usage_error(ctx, "cannot read --plan " + opt("plan") + "; give the plan.json that `repo2rocm plan` wrote");
  options.plan = nlohmann::json::parse(plan_in, nullptr, false);
  if (!options.plan.is_object()) {
    return usage_error(ctx,
                       "--plan " + opt("plan") + " is not a JSON object (expected plan.json from `repo2rocm plan`)");
  }
  if (options.mode > 2) return usage_error(ctx, "--mode must be 0, 1 or 2; found " + opt("mode"));
  options.arch = ctx.arch;
  options.run_dir = opt("run-dir");
  options.workspace_source = opt("workspace");
  options.pipeline_file = ctx.pipeline;
  auto loaded = load_pipeline(ctx, ctx.pipeline);
  if (auto* failed = std::get_if<int>(&loaded)) return *failed;
  auto& pipeline = std::get<run::port_session>(loaded);
  auto outcome = executor::run(*pipeline.session, options);
  if (!outcome) return report_failure(ctx, outcome.error());
  return print_outcome(ctx, *outcome);
}

int run_resume(const cli_context& ctx) {
  if (ctx.words.size() != 1) return usage_error(ctx, "usage: repo2rocm resume RUN_DIR");
  const std::string dir = ctx.words[0];
  auto pipeline_file = executor::recorded_pipeline(dir);
  if (!pipeline_file) return report_error(ctx, pipeline_file.error(), exit_usage);
  if (pipeline_file->empty()) {
    return usage_error(ctx, dir +
                                "/run.json records no pipeline file; this run was started through the C++ API "
                                "and must be resumed through it (r2r::executor::resume)");
  }
  auto loaded = load_pipeline(ctx, pipeline_file->string());
  if (auto* failed = std::get_if<int>(&loaded)) return *failed;
  auto& pipeline = std::get<run::port_session>(loaded);
  auto outcome = executor::resume(*pipeline.session, dir, {},
                                  [&](const std::string& line) { *ctx.err << "repo2rocm resume: " << line << "\n"; });
  if (!outcome) return report_failure(ctx, outcome.error());
  return print_outcome(ctx, *outcome);
}

}  // namespace r2r::cli
