// SPDX-License-Identifier: MIT
// `repo2rocm run SOURCE`: intake -> plan -> port -> environment -> execute -> verify -> bundle
// (mode 0: intake -> plan -> environment -> the README's own commands), in RUN_DIR, resumable,
// with live progress on a terminal and JSON events otherwise. Exit codes: docs/run.md.
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "plan_core.hpp"
#include "run_baseline.hpp"
#include "run_context.hpp"
#include "run_environment.hpp"
#include "run_pipeline.hpp"
#include "run_prepare.hpp"
#include "run_stages.hpp"

#include <r2r/core/pipeline_config.hpp>

#include <unistd.h>

#include <cstdlib>
#include <ostream>
#include <regex>

namespace r2r::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* run_usage =
    "usage: repo2rocm run SOURCE [--mode 0|1|2] [--pipeline FILE] [--gpu N] [--arch GFX] [--run-dir DIR] "
    "[--commit REF] [--base-image REF] [--json]";

std::string option(const cli_context& ctx, const std::string& name) {
  auto it = ctx.options.find(name);
  return it == ctx.options.end() ? std::string() : it->second;
}

int usage_error(const cli_context& ctx, const std::string& message) {
  return report_error(ctx, core::error{core::phase::usage, message + "\n" + run_usage}, exit_usage);
}

/// The inputs a run directory was made for; a resumed run must ask for the same.
json run_record(const run::run_options& o, const std::string& pipeline) {
  json record{{"source", o.source}, {"commit", o.commit},         {"mode", o.mode},
              {"arch", o.arch},     {"base_image", o.base_image}, {"pipeline", pipeline}};
  if (!o.paper.empty()) record["paper"] = o.paper.string();  // absent without --paper: older run.json files match
  return record;
}

/// Checks --run-dir: absent, empty, or an earlier run of the same inputs. Returns a usage message.
std::string check_run_dir(const fs::path& dir, const json& record) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return {};
  if (!fs::is_directory(dir, ec)) return "--run-dir " + dir.string() + " exists and is not a directory";
  if (fs::is_empty(dir, ec)) return {};
  auto earlier = run::read_json(dir / "run.json");
  if (!earlier)
    return "--run-dir " + dir.string() +
           " is not empty and holds no earlier run (no run.json); choose a new directory or empty it";
  for (const char* key : {"source", "commit", "mode", "arch", "base_image", "pipeline", "paper"}) {
    if (earlier->value(key, json()) != record.value(key, json())) {
      return "--run-dir " + dir.string() + " holds a run with " + key + " " + earlier->value(key, json()).dump() +
             ", this one asks for " + record.value(key, json()).dump() +
             "; resume with the same arguments or choose another --run-dir";
    }
  }
  return {};
}

struct ending {
  std::string outcome;
  int code = exit_error;
  std::string message;
  json details = json::object();
};

ending decide(const run::run_context& ctx, const run::stages_outcome& stages, const std::string& no_device_why) {
  if (!stages.completed) {
    const std::string what = stages.status == "unavailable" ? "stage " + stages.stage + " is " + stages.message
                                                            : "stage " + stages.stage + " failed: " + stages.message;
    return {
        "error", stages.usage ? exit_usage : exit_error, what, {{"stage", stages.stage}, {"status", stages.status}}};
  }
  if (ctx.options.mode == 0) {
    const json& b = ctx.baseline;
    if (!b.value("all_ran", false))
      return {"baseline_failed", exit_not_verified, b.value("message", "mode 0: the baseline did not run"), b};
    if (!ctx.gpu)
      return {"no_device", exit_no_device,
              b.value("message", "") + ", but with no ROCm device (" + no_device_why +
                  "): the baseline says nothing about ROCm here",
              b};
    return {"baseline_ran", exit_ok, b.value("message", ""), b};
  }
  if (!ctx.verdict) return {"error", exit_error, "the verify stage finished without a verdict", json::object()};
  const auto& v = *ctx.verdict;
  json details{{"failed_checks", v.failed_checks}, {"report", v.details}};
  if (v.status == "verified") return {"verified", exit_ok, v.message.empty() ? "verified" : v.message, details};
  if (v.status == "no_device")
    return {"no_device", exit_no_device, v.message.empty() ? "no ROCm device: " + no_device_why : v.message, details};
  std::string message = v.message.empty() ? "not verified" : v.message;
  for (const auto& check : v.failed_checks) message += "\n  failed: " + check;
  return {"not_verified", exit_not_verified, message, details};
}

}  // namespace

int run_run(const cli_context& ctx) {
  if (ctx.words.size() != 1) return usage_error(ctx, "run takes exactly one SOURCE (a git URL or a local repository)");
  run::run_options o;
  o.source = ctx.words[0];
  o.commit = option(ctx, "commit");
  o.base_image = option(ctx, "base-image");
  if (const std::string mode = option(ctx, "mode"); !mode.empty()) {
    if (mode != "0" && mode != "1" && mode != "2")
      return usage_error(ctx,
                         "--mode takes 0 (baseline), 1 (functional) or 2 (functional + metrics); found '" + mode + "'");
    o.mode = mode[0] - '0';
  }
  if (const std::string gpu = option(ctx, "gpu"); !gpu.empty()) {
    if (!std::regex_match(gpu, std::regex("^[0-9]{1,4}$")))
      return usage_error(ctx,
                         "--gpu takes a GPU index such as 0 (see `repo2rocm sandbox doctor`); found '" + gpu + "'");
    o.gpu = std::stoi(gpu);
  }
  auto arch = normalise_arch(option(ctx, "arch"));
  if (!arch) return usage_error(ctx, arch.error().message);
  o.arch = *arch;
  o.cache_dir = option(ctx, "cache-dir").empty() ? default_cache_dir() : fs::path(option(ctx, "cache-dir"));
  o.state_dir = option(ctx, "state-dir").empty() ? default_state_dir() : fs::path(option(ctx, "state-dir"));
  if (!option(ctx, "paper").empty()) o.paper = fs::absolute(option(ctx, "paper")).lexically_normal();
  if (!option(ctx, "run-dir").empty()) o.run_dir = fs::absolute(option(ctx, "run-dir")).lexically_normal();

  auto parsed = ctx.pipeline.empty()
                    ? core::parse_pipeline_text(generated::run_pipeline, "(built-in) configs/pipelines/run.json")
                    : core::parse_pipeline_file(ctx.pipeline);
  if (!parsed.config) {
    std::string message = "invalid pipeline:";
    for (const auto& p : parsed.problems) message += "\n  " + p.to_string();
    return report_error(ctx, core::error{core::phase::config, message}, exit_usage);
  }
  const std::string pipeline_dir = ctx.pipeline.empty() ? std::string() : parsed.config->file.parent_path().string();
  auto registry = core::plugin_registry::load(ctx.search_path(parsed.config->search_paths, pipeline_dir));
  if (!registry) return report_error(ctx, registry.error(), exit_error);
  if (const auto problems = core::check_pipeline_plugins(*parsed.config, *registry); !problems.empty()) {
    std::string message = "the pipeline cannot run here:";
    for (const auto& p : problems) message += "\n  " + p.to_string();
    return report_error(ctx, core::error{core::phase::config, message, {}, parsed.config->file.string()}, exit_usage);
  }
  const std::string pipeline_name = ctx.pipeline.empty() ? std::string("(built-in) run") : parsed.config->file.string();
  const json record = run_record(o, pipeline_name);
  if (!o.run_dir.empty()) {
    if (const std::string problem = check_run_dir(o.run_dir, record); !problem.empty())
      return usage_error(ctx, problem);
  }

  run::run_context rc;
  rc.cli = &ctx;
  rc.options = o;
  rc.pipeline = &*parsed.config;
  rc.registry = &*registry;
  const char* sysroot = std::getenv("R2R_SYSROOT");
  rc.gpus = core::discover_amd_gpus(sysroot != nullptr && *sysroot != '\0' ? sysroot : "/");
  std::string no_device_why = rc.gpus.summary();
  if (!rc.gpus.gpus.empty()) {
    auto pin = core::pin_gpu(rc.gpus, o.gpu.value_or(0));
    if (!pin) return usage_error(ctx, "--gpu: " + pin.error().message);
    rc.gpu = *pin;
  }

  const bool live = !ctx.json && isatty(STDERR_FILENO);
  run::run_progress progress(live ? run::run_progress::style::live : run::run_progress::style::events, *ctx.out,
                             *ctx.err);
  rc.progress = &progress;
  if (!o.run_dir.empty()) {
    rc.run_dir = o.run_dir;
    std::error_code ec;
    fs::create_directories(rc.run_dir, ec);
    if (ec || !progress.attach(rc.run_dir / "events.jsonl"))
      return report_error(ctx, core::error{core::phase::io, "cannot write the run directory " + rc.run_dir.string()},
                          exit_error);
  }
  progress.run_started(json{{"source", o.source},
                            {"mode", o.mode},
                            {"run_dir", rc.run_dir.empty() ? json(nullptr) : json(rc.run_dir.string())},
                            {"pipeline", pipeline_name},
                            {"gpu", rc.gpu ? json(rc.gpu->gpu.gfx) : json(nullptr)},
                            {"gpu_summary", no_device_why}});

  std::vector<run::stage_step> steps;
  steps.push_back(run::intake_step());
  // The run record goes in as soon as the directory exists, so an interrupted run can resume.
  steps.back().run = [inner = steps.back().run, record](run::run_context& c) {
    auto r = inner(c);
    if (r.status == "ok") {
      if (auto w = run::write_atomically(c.run_dir / "run.json", record.dump(2) + "\n"); !w) {
        r.status = "failed";
        r.message = w.error().to_string();
      }
    }
    return r;
  };
  steps.push_back(run::plan_step());
  if (o.mode == 0) {
    steps.push_back(run::environment_step());
    steps.push_back(run::baseline_step());
  } else {
    const auto hooks = run::build_hooks();
    steps.push_back(run::port_step());
    steps.push_back(run::environment_step());
    steps.push_back({"execute",
                     hooks.execute,
                     "the executor (policy proposes, guards judge, the sandbox runs; trajectory.jsonl) is not part of "
                     "this repo2rocm",
                     {}});
    steps.push_back({"verify",
                     hooks.verify,
                     "no verifier (r2r.verifier.mode1-rocm, mode2-metrics) is part of this repo2rocm; no verdict is "
                     "given without one",
                     {}});
    steps.push_back({"bundle", hooks.bundle, "the audit bundle writer is not part of this repo2rocm", {}});
  }
  const auto stages = run::run_stages(rc, steps);
  const ending end = decide(rc, stages, no_device_why);
  json details = end.details;
  details["run_dir"] = rc.run_dir.string();
  progress.verdict(end.outcome, end.code, end.message, details);
  if (live) *ctx.err << "run directory: " << rc.run_dir.string() << "\n";
  return end.code;
}

}  // namespace r2r::cli
