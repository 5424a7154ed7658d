// SPDX-License-Identifier: MIT
// `repo2rocm batch MANIFEST` and `repo2rocm batch report DIR` (docs/batch.md): turn the options into
// r2r::batch's engine options and print the outcome; the work is in r2r::batch (launch.hpp).
#include "cli_context.hpp"
#include "exit_codes.hpp"

#include "k8s_jobs.hpp"
#include "launch.hpp"
#include "manifest.hpp"

#include <filesystem>
#include <ostream>

namespace r2r::cli {
namespace {

namespace fs = std::filesystem;

int batch_error(const cli_context& ctx, const core::error& e) {
  const bool operator_fix = e.where == core::phase::usage || e.where == core::phase::config;
  *ctx.err << "repo2rocm batch: " << (e.where == core::phase::usage ? e.message : e.to_string()) << "\n";
  if (e.where == core::phase::usage) *ctx.err << "`repo2rocm batch --help` lists the options.\n";
  return operator_fix ? exit_usage : exit_error;
}

int usage_error(const cli_context& ctx, const std::string& message) {
  return batch_error(ctx, core::error{core::phase::usage, message});
}

std::string option_or(const cli_context& ctx, const std::string& name, const std::string& fallback) {
  return ctx.options.count(name) ? ctx.option(name) : fallback;
}

int emit_k8s(const cli_context& ctx, const std::string& mode) {
  const auto& emit = ctx.lists.at("emit");
  if (emit.size() != 2 || emit[0] != "k8s") return usage_error(ctx, "--emit takes `k8s DIR`");
  if (ctx.words.size() != 1) return usage_error(ctx, "--emit k8s needs the MANIFEST");
  auto entries = batch::load_manifest(ctx.words[0]);
  if (!entries) return usage_error(ctx, entries.error().message);
  batch::k8s_options k;
  k.image = option_or(ctx, "k8s-image", "repo2rocm:latest");
  k.pvc = option_or(ctx, "k8s-pvc", "repo2rocm-runs");
  k.namespace_name = ctx.option("k8s-namespace");
  k.mode = mode;
  k.arch = ctx.option("arch");
  k.pipeline = ctx.pipeline;
  auto written = batch::emit_k8s(*entries, k, emit[1]);
  if (!written) return usage_error(ctx, written.error().message);
  *ctx.out << "wrote " << written->size() - 1 << " Job manifests and README.md to " << emit[1] << "\n";
  return exit_ok;
}

}  // namespace

int run_batch(const cli_context& ctx) {
  const std::string mode = option_or(ctx, "mode", "1");
  if (mode != "0" && mode != "1" && mode != "2")
    return usage_error(ctx, "--mode must be 0, 1 or 2, found '" + mode + "'");
  if (ctx.lists.count("emit")) return emit_k8s(ctx, mode);

  batch::engine_options o;
  o.resume = ctx.options.count("resume") != 0;
  if (ctx.words.size() > 1)
    return usage_error(ctx, "one MANIFEST only, found " + std::to_string(ctx.words.size()) + " words");
  if (ctx.words.empty() && !o.resume) return usage_error(ctx, "give the MANIFEST (CSV or JSONL of repositories)");
  if (!ctx.words.empty()) o.manifest = ctx.words[0];
  o.out_dir = option_or(ctx, "out", "batch");
  o.scheduler_id = option_or(ctx, "scheduler", "r2r.scheduler.local");
  o.mode = mode;
  o.arch = ctx.option("arch");
  if (!ctx.pipeline.empty()) o.pipeline = fs::absolute(ctx.pipeline).string();
  auto jobs = ctx.number<int>("jobs", 0);
  if (!jobs) return batch_error(ctx, jobs.error());
  o.jobs = *jobs;
  auto usd = ctx.number<double>("max-usd", -1);
  if (!usd) return batch_error(ctx, usd.error());
  if (*usd >= 0) o.limits.max_usd = *usd;
  auto tokens = ctx.number<long long>("max-tokens", -1);
  if (!tokens) return batch_error(ctx, tokens.error());
  if (*tokens >= 0) o.limits.max_tokens = *tokens;
  auto hours = ctx.number<double>("max-gpu-hours", -1);
  if (!hours) return batch_error(ctx, hours.error());
  if (*hours >= 0) o.limits.max_gpu_hours = *hours;
  auto config = batch::scheduler_config(o.scheduler_id, ctx.option("scheduler-config"), ctx.option("gpus"));
  if (!config) return batch_error(ctx, config.error());
  // Each job is this binary's `run` with the same plugin path and log level.
  o.runner = batch::runner_argv(ctx.plugin_paths, ctx.log_level);
  if (ctx.json) o.on_event = [&ctx](const nlohmann::json& e) { *ctx.out << e.dump() << "\n" << std::flush; };

  auto result = batch::run_with_scheduler(o, ctx.search_path(), *config);
  if (!result) return batch_error(ctx, result.error());
  if (!ctx.json) {
    *ctx.out << result->summary["headline"].get<std::string>() << "\n";
    if (!result->summary.value("stopped", "").empty())
      *ctx.out << "stopped: " << result->summary["stopped"].get<std::string>() << "\n";
    *ctx.out << "summary: " << (fs::path(o.out_dir) / "summary.html").string() << ", summary.json, summary.csv\n";
  }
  return result->exit_code;
}

int run_batch_report(const cli_context& ctx) {
  if (ctx.words.size() != 1) return usage_error(ctx, "`batch report` takes one directory (the batch's --out)");
  const fs::path dir = ctx.words[0];
  auto summary = batch::rebuild_summary(dir);
  if (!summary) return batch_error(ctx, summary.error());
  if (ctx.json) {
    *ctx.out << summary->dump() << "\n";
  } else {
    *ctx.out << (*summary)["headline"].get<std::string>() << "\n"
             << "summary: " << (dir / "summary.html").string() << ", summary.json, summary.csv\n";
  }
  return exit_ok;
}

}  // namespace r2r::cli
