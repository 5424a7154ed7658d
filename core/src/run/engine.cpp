// SPDX-License-Identifier: MIT
#include <r2r/run/engine.hpp>

#include "run_baseline.hpp"
#include "run_context.hpp"
#include "run_environment.hpp"
#include "run_prepare.hpp"
#include "run_stages.hpp"

#include <r2r/core/gpu_topology.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_registry.hpp>
#include <r2r/core/stage_runner.hpp>
#include <r2r/support/http/url.hpp>

#include <algorithm>
#include <cstdlib>

namespace r2r::run {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// docs/run.md "Exit codes"; the CLI's exit_codes.hpp has the same values.
constexpr int code_ok = 0;
constexpr int code_error = 1;
constexpr int code_usage = 2;
constexpr int code_not_verified = 3;
constexpr int code_no_device = 4;

core::error usage(std::string message) {
  return core::error{core::phase::usage, std::move(message)};
}

/// The inputs a run directory was made for; a resumed run must ask for the same.
json run_record(const run_options& o, const std::string& pipeline) {
  json record{{"source", o.source}, {"commit", o.commit},         {"mode", o.mode},
              {"arch", o.arch},     {"base_image", o.base_image}, {"pipeline", pipeline}};
  // Absent without --paper: older run.json files match. A URL's credentials never reach the record.
  if (!o.paper.empty()) record["paper"] = support::http::redact_url(o.paper.string());
  return record;
}

/// Checks --run-dir: absent, empty, or an earlier run of the same inputs. Returns a usage message.
std::string check_run_dir(const fs::path& dir, const json& record) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return {};
  if (!fs::is_directory(dir, ec)) return "--run-dir " + dir.string() + " exists and is not a directory";
  if (fs::is_empty(dir, ec)) return {};
  auto earlier = read_json(dir / "run.json");
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

json use_json(const core::plugin_use& u) {
  json j{{"use", u.use}, {"config", u.config}};
  if (u.log_level) j["log_level"] = *u.log_level;
  return j;
}

/// The resolved pipeline (after `extends`) as a pipeline file: RUN_DIR/pipeline.json.
json resolved_pipeline(const core::pipeline_config& p) {
  json stages = json::array();
  for (const auto& s : p.stages) {
    json e = use_json(s.plugin);
    e["stage"] = s.stage;
    e["name"] = s.name;
    stages.push_back(std::move(e));
  }
  json out{{"version", 1}, {"name", p.name}, {"description", p.description}, {"pipeline", std::move(stages)}};
  if (!p.instances.empty()) {
    json instances = json::object();
    for (const auto& [name, use] : p.instances) instances[name] = use_json(use);
    out["instances"] = std::move(instances);
  }
  return out;
}

}  // namespace

std::vector<std::string> stage_order(int mode) {
  if (mode == 0) return {"intake", "plan", "environment", "execute"};
  return {"intake", "plan", "port", "environment", "execute", "verify", "bundle"};
}

const std::vector<required_stage>& required_stages(int mode) {
  static const std::vector<required_stage> baseline = {
      {"rank", "the plan stage ranks ROCm base images with it (r2r.ranker.jaccard)"},
      {"sandbox", "the environment and execute stages run in it (r2r.sandbox.docker, r2r.sandbox.local)"}};
  static const std::vector<required_stage> full = {
      {"rank", "the plan stage ranks ROCm base images with it (r2r.ranker.jaccard)"},
      {"convert", "the port stage converts CUDA to HIP with them (hipify, hazards, build-check)"},
      {"sandbox", "the environment, execute and verify stages run in it (r2r.sandbox.docker, r2r.sandbox.local)"},
      {"policy", "the execute stage asks it for each action (r2r.policy.playbook)"},
      {"guard", "the execute stage puts every action through them (the six r2r.guard.* plugins)"},
      {"verify", "the verify stage gives the verdict with them (r2r.verifier.mode1-rocm)"}};
  return mode == 0 ? baseline : full;
}

std::vector<core::config_problem> check_run_pipeline(const core::pipeline_config& config, int mode) {
  std::vector<core::config_problem> problems;
  for (const auto& r : required_stages(mode)) {
    const bool present = std::any_of(config.stages.begin(), config.stages.end(),
                                     [&](const core::pipeline_stage& s) { return s.stage == r.stage; });
    if (!present)
      problems.push_back({"/pipeline",
                          {},
                          std::string("a run pipeline needs a `") + r.stage + "` stage: " + r.why +
                              "; found none. Add one, or extend configs/pipelines/run.json"});
  }
  int policies = 0;
  for (const auto& s : config.stages) policies += s.stage == "policy" ? 1 : 0;
  if (mode != 0 && policies > 1)
    problems.push_back({"/pipeline",
                        {},
                        "a run pipeline has exactly one `policy` stage; found " + std::to_string(policies) +
                            ". Keep one (override it by name with `extends`)"});
  return problems;
}

struct engine::impl {
  engine_options options;
  std::unique_ptr<core::plugin_registry> registry;  // the session refers to it: destroyed after it
  std::unique_ptr<core::pipeline_session> session;
  std::unique_ptr<run_progress> progress;
  run_context ctx;
  json record;
  std::string no_device_why;

  ~impl() {
    session.reset();
    registry.reset();
  }

  core::result<void> write_records() {
    if (auto w = write_atomically(ctx.run_dir / "pipeline.json", resolved_pipeline(options.pipeline).dump(2) + "\n");
        !w)
      return w;
    return write_atomically(ctx.run_dir / "run.json", record.dump(2) + "\n");
  }

  std::vector<stage_step> steps() const {
    if (options.run.mode == 0) return {intake_step(), plan_step(), environment_step(), baseline_step()};
    return {intake_step(),
            plan_step(),
            port_step(),
            environment_step(),
            {"execute", run_execute, {}},
            {"verify", run_verify, {}},
            {"bundle", run_bundle, {}}};
  }

  run_ending decide(const std::vector<core::stage_report>& reports) const;
};

engine::engine(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
engine::~engine() = default;

core::result<std::unique_ptr<engine>> engine::create(engine_options options) {
  auto p = std::make_unique<impl>();
  const auto order = stage_order(options.run.mode);
  if (!options.last_stage.empty() && std::find(order.begin(), order.end(), options.last_stage) == order.end())
    return tl::unexpected(
        usage("there is no stage '" + options.last_stage + "' in a mode " + std::to_string(options.run.mode) + " run"));
  if (auto problems = check_run_pipeline(options.pipeline, options.run.mode); !problems.empty()) {
    std::string message = "the pipeline cannot drive a run:";
    for (const auto& pr : problems) message += "\n  " + pr.to_string();
    return core::fail(core::phase::config, message, {}, options.pipeline.file.string());
  }
  p->record = run_record(options.run, options.pipeline_label);
  if (!options.run.run_dir.empty()) {
    if (const std::string problem = check_run_dir(options.run.run_dir, p->record); !problem.empty())
      return tl::unexpected(usage(problem));
  }
  auto registry = core::plugin_registry::load(options.search_path);
  if (!registry) return tl::unexpected(registry.error());
  p->registry = std::make_unique<core::plugin_registry>(std::move(*registry));
  if (const auto problems = core::check_pipeline_plugins(options.pipeline, *p->registry); !problems.empty()) {
    std::string message = "the pipeline cannot run here:";
    for (const auto& pr : problems) message += "\n  " + pr.to_string();
    return core::fail(core::phase::config, message, {}, options.pipeline.file.string());
  }
  p->options = std::move(options);
  auto session = core::pipeline_session::create(p->options.pipeline, *p->registry);
  if (!session) return tl::unexpected(session.error());
  p->session = std::move(*session);

  auto& ctx = p->ctx;
  ctx.options = p->options.run;
  ctx.pipeline = &p->session->config();
  ctx.registry = p->registry.get();
  ctx.session = p->session.get();
  const char* sysroot = std::getenv("R2R_SYSROOT");
  ctx.gpus = core::discover_amd_gpus(sysroot != nullptr && *sysroot != '\0' ? sysroot : "/");
  p->no_device_why = ctx.gpus.summary();
  if (!ctx.gpus.gpus.empty()) {
    auto pin = core::pin_gpu(ctx.gpus, ctx.options.gpu.value_or(0));
    if (!pin) return tl::unexpected(usage("--gpu: " + pin.error().message));
    ctx.gpu = *pin;
  }
  p->progress = std::make_unique<run_progress>(
      p->options.live ? run_progress::style::live : run_progress::style::events, *p->options.out, *p->options.err);
  ctx.progress = p->progress.get();
  return std::unique_ptr<engine>(new engine(std::move(p)));
}

run_ending engine::run() {
  auto& p = *impl_;
  auto& ctx = p.ctx;
  if (!ctx.options.run_dir.empty()) {
    ctx.run_dir = ctx.options.run_dir;
    std::error_code ec;
    fs::create_directories(ctx.run_dir, ec);
    if (ec || !p.progress->attach(ctx.run_dir / "events.jsonl"))
      return {"error", code_error, "cannot write the run directory " + ctx.run_dir.string(), json::object()};
  }
  p.progress->run_started(json{{"source", ctx.options.source},
                               {"mode", ctx.options.mode},
                               {"run_dir", ctx.run_dir.empty() ? json(nullptr) : json(ctx.run_dir.string())},
                               {"pipeline", p.options.pipeline_label},
                               {"gpu", ctx.gpu ? json(ctx.gpu->gpu.gfx) : json(nullptr)},
                               {"gpu_summary", p.no_device_why},
                               {"plugins", plugins_used()}});
  // A resumed run records the pipeline it runs with now: the executor refuses to resume its turns
  // when RUN_DIR/pipeline.json changed since they started.
  if (!ctx.run_dir.empty() && fs::exists(ctx.run_dir / "run.json")) {
    if (auto w = p.write_records(); !w) return {"error", code_error, w.error().to_string(), json::object()};
  }

  core::stage_runner runner;
  std::vector<std::string> order;
  for (auto& step : p.steps()) {
    order.push_back(step.name);
    const bool first = order.size() == 1;
    auto run_fn = step.run;
    core::stage_runner::restorer restore;
    if (step.restore) restore = [&ctx, r = step.restore](const json& results) { return r(ctx, results); };
    runner.on(
        step.name,
        [&p, &ctx, run_fn, first](core::stage_context& sc) -> core::result<void> {
          stage_result r = run_fn(ctx);
          // The run record goes in as soon as the directory exists, so an interrupted run can resume.
          if (first && r.status == "ok") {
            if (auto w = p.write_records(); !w) r = stage_result{"failed", w.error().to_string(), {}, {}, false};
          }
          sc.output.message = r.message;
          sc.output.results = r.results;
          sc.output.outputs = r.outputs;
          sc.output.skipped = r.status == "skipped";
          if (r.status == "ok" || r.status == "skipped") return {};
          return core::fail(r.usage ? core::phase::usage : core::phase::run, r.message);
        },
        restore);
    if (step.name == p.options.last_stage) break;
  }
  core::sequence_options seq;
  seq.run_dir = [&ctx] { return ctx.run_dir; };
  seq.started = [&](const std::string& stage) { p.progress->stage_started(stage); };
  seq.finished = [&](const core::stage_report& r) {
    p.progress->stage_finished(r.stage, r.status, r.output.message, r.output.results, r.seconds);
  };
  json state = json::object();
  const auto reports = runner.run_sequence(*p.session, order, state, seq);
  run_ending end = p.decide(reports);
  end.details["run_dir"] = ctx.run_dir.string();
  p.progress->verdict(end.outcome, end.code, end.message, end.details);
  if (p.options.live) *p.options.err << "run directory: " << ctx.run_dir.string() << "\n";
  return end;
}

run_ending engine::impl::decide(const std::vector<core::stage_report>& reports) const {
  for (const auto& r : reports) {
    if (r.ok) continue;
    // A stage that found the reason the run cannot be verified (a gated or missing asset) said so
    // as a verdict: the run ends not_verified, not as an error.
    if (ctx.verdict && ctx.verdict->status == "not_verified") {
      std::string message = ctx.verdict->message;
      for (const auto& check : ctx.verdict->failed_checks) message += "\n  failed: " + check;
      return {"not_verified",
              code_not_verified,
              message,
              {{"stage", r.stage}, {"failed_checks", ctx.verdict->failed_checks}, {"report", ctx.verdict->details}}};
    }
    const std::string what = r.status == "unavailable" ? "stage " + r.stage + " is " + r.output.message
                                                       : "stage " + r.stage + " failed: " + r.output.message;
    return {"error", r.usage ? code_usage : code_error, what, {{"stage", r.stage}, {"status", r.status}}};
  }
  const auto full = stage_order(ctx.options.mode);
  if (reports.size() < full.size())
    return {"stopped", code_ok, "stopped after stage " + options.last_stage + ", as asked", json::object()};
  if (ctx.options.mode == 0) {
    const json& b = ctx.baseline;
    if (!b.value("all_ran", false))
      return {"baseline_failed", code_not_verified, b.value("message", "mode 0: the baseline did not run"), b};
    if (!ctx.gpu)
      return {"no_device", code_no_device,
              b.value("message", "") + ", but with no ROCm device (" + no_device_why +
                  "): the baseline says nothing about ROCm here",
              b};
    return {"baseline_ran", code_ok, b.value("message", ""), b};
  }
  if (!ctx.verdict) return {"error", code_error, "the verify stage finished without a verdict", json::object()};
  const auto& v = *ctx.verdict;
  json details{{"failed_checks", v.failed_checks}, {"report", v.details}};
  if (v.status == "verified") return {"verified", code_ok, v.message.empty() ? "verified" : v.message, details};
  if (v.status == "no_device")
    return {"no_device", code_no_device, v.message.empty() ? "no ROCm device: " + no_device_why : v.message, details};
  std::string message = v.message.empty() ? "not verified" : v.message;
  for (const auto& check : v.failed_checks) message += "\n  failed: " + check;
  return {"not_verified", code_not_verified, message, details};
}

json engine::plugins_used() const {
  json out = json::array();
  for (const auto& m : impl_->session->stages()) {
    out.push_back({{"stage", m.stage->stage},
                   {"name", m.stage->name},
                   {"plugin_id", m.instance->info().id},
                   {"version", m.instance->info().version}});
  }
  return out;
}

}  // namespace r2r::run
