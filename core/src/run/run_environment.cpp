// SPDX-License-Identifier: MIT
#include "run_environment.hpp"

#include "run_assets.hpp"

#include <r2r/plugin_api.h>
#include <r2r/planning/plan.hpp>

#include <fstream>

namespace r2r::run {
namespace {

using nlohmann::json;

stage_result failed(std::string message) {
  stage_result r;
  r.status = "failed";
  r.message = std::move(message);
  return r;
}

/// Replaces RUN_DIR/<name> with `text` (whole or not at all).
core::result<void> replace_file(const run_context& ctx, const std::string& name, const std::string& text) {
  const auto file = ctx.run_dir / name;
  const auto tmp = ctx.run_dir / (name + ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush())
      return core::fail(core::phase::io,
                        "cannot write " + tmp.string() + " to pin the base image's digest; check the disk");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) return core::fail(core::phase::io, "cannot replace " + file.string() + ": " + ec.message());
  return {};
}

/// RUN_DIR/plan.json and the plan's Dockerfile again from ctx.plan (after the base was pinned).
core::result<void> write_plan(const run_context& ctx) {
  if (auto r = replace_file(ctx, "plan.json", ctx.plan.dump(2) + "\n"); !r) return r;
  std::string dockerfile;
  try {
    dockerfile = planning::render_dockerfile(ctx.plan);
  } catch (const nlohmann::json::exception& e) {
    return core::fail(core::phase::config, std::string("the plan cannot be rendered into a Dockerfile: ") + e.what());
  }
  return replace_file(ctx, "Dockerfile", dockerfile);
}

stage_result prepare_sandbox(run_context& ctx) {
  // The pipeline's sandbox stages are alternatives in file order: the first whose `info` answers.
  std::string tried;
  for (const auto& m : ctx.session->stages()) {
    if (m.stage->stage != "sandbox") continue;
    auto info = m.instance->call("info", json::object());
    if (!info) {
      tried += "; " + m.stage->name + " (" + m.stage->plugin.use + "): " + info.error().message;
      continue;
    }
    ctx.sandbox.stage = m.stage->name;
    ctx.sandbox.plugin_id = m.stage->plugin.use;
    ctx.sandbox.config = m.stage->plugin.config;
    ctx.sandbox.engine = info->value("engine", "");
    ctx.sandbox.instance = m.instance;
    break;
  }
  if (ctx.sandbox.instance == nullptr)
    return failed(tried.empty() ? "the pipeline has no `sandbox` stage; add one (configs/pipelines/run.json)"
                                : "no sandbox of the pipeline answered" + tried);
  // Plugins reach the chosen sandbox as the service "sandbox" (the verifiers' sandbox_service).
  if (ctx.sandbox.stage != "sandbox" && !ctx.session->alias("sandbox", ctx.sandbox.stage))
    return failed(
        "the pipeline has an instance named `sandbox` beside its sandbox stages; the run's sandbox is "
        "the `sandbox` stage that answers, so remove or rename that instance");

  stage_result r;
  r.results =
      json{{"sandbox", ctx.sandbox.plugin_id}, {"sandbox_stage", ctx.sandbox.stage}, {"engine", ctx.sandbox.engine}};
  if (ctx.sandbox.engine == "local" || ctx.sandbox.plugin_id == "r2r.sandbox.local") {
    r.message = ctx.sandbox.stage + " (" + ctx.sandbox.plugin_id + ")" + tried +
                "; the local bubblewrap sandbox runs this host's binaries, so the plan's image is not built";
    r.results["image"] = nullptr;
    return r;
  }
  const std::string base = ctx.plan.at("base_image").value("ref", "");
  if (base.empty())
    return failed(
        "the plan has no base image (no catalog image passed the filters; see plan.json hazards); "
        "give one with --base-image");
  ctx.progress->stage_progress("environment", "checking the base image " + base);
  auto present = ctx.sandbox.instance->call("image_inspect", json{{"image", base}});
  if (!present) return failed("cannot inspect the base image " + base + ": " + present.error().message);
  std::string digest = present->value("digest", "");
  if (!present->value("exists", false)) {
    if (ctx.options.no_pull)
      return failed("the base image " + base + " is not in the " + ctx.sandbox.engine +
                    " image store and images are never pulled (--no-pull); pull it first (`docker pull " + base +
                    "`), pass --base-image with an image that is present, or run without --no-pull");
    ctx.progress->stage_progress("environment", "pulling the base image " + base);
    auto pulled = ctx.sandbox.instance->call("image_pull", json{{"image", base}});
    if (!pulled && pulled.error().status == R2R_ERR_UNKNOWN_METHOD)
      return failed("the base image " + base + " is not in the " + ctx.sandbox.engine + " image store and the " +
                    ctx.sandbox.plugin_id + " sandbox cannot pull images; pull it first (`docker pull " + base +
                    "`) or pass --base-image with an image that is present");
    if (!pulled) return failed("pulling the base image " + base + " failed: " + pulled.error().message);
    for (const auto& line : pulled->value("progress", json::array()))
      if (line.is_string())
        ctx.progress->stage_progress("environment", "pull " + base + ": " + line.get<std::string>());
    digest = pulled->value("digest", "");
    r.results["pulled"] = pulled->value("pulled", false);
  } else {
    r.results["pulled"] = false;
  }
  // A base the engine knows by its registry digest is pinned: plan.json and every Dockerfile
  // rendered from it say FROM repo@sha256:…, so a rebuild gets the same bytes. Images that never
  // came from a registry (imported, built here) have no such digest and stay named by tag.
  if (digest.find("@sha256:") != std::string::npos) {
    ctx.plan["base_image"]["pinned"] = digest;
    r.results["base_digest"] = digest;
    if (auto written = write_plan(ctx); !written) return failed(written.error().message);
    r.outputs = {"plan.json", "Dockerfile"};
  } else {
    r.results["base_digest"] = nullptr;
  }
  ctx.progress->stage_progress("environment", "building the environment image on " + base);
  json build{{"from", base},
             {"env", ctx.plan.value("env", json::object())},
             {"files", {{"plan.json", ctx.plan.dump(2) + "\n"}}},
             {"run", json::array()},
             {"workdir", "/workspace"}};
  auto built = ctx.sandbox.instance->call("image_build", build);
  if (!built) return failed("building the environment image on " + base + " failed: " + built.error().message);
  ctx.sandbox.image = built->value("image", "");
  r.results["base_image"] = base;
  r.results["image"] = ctx.sandbox.image;
  r.message = ctx.sandbox.engine + ": image " + ctx.sandbox.image.substr(0, 19) + " built on " + base;
  return r;
}

/// The sandbox and its image, then the plan's assets (run_assets.hpp).
stage_result run_environment(run_context& ctx) {
  stage_result r = prepare_sandbox(ctx);
  if (r.status != "ok") return r;
  const assets_step a = fetch_plan_assets(ctx);
  if (!a.results.empty()) r.results["assets"] = a.results;
  if (!a.ok) return failed(a.message);
  if (!a.message.empty()) r.message += "; " + a.message;
  return r;
}

}  // namespace

json sandbox_create_request(const run_context& ctx) {
  json limits{{"pids", 4096}};
  if (ctx.sandbox.plugin_id != "r2r.sandbox.local") limits["memory_bytes"] = 16LL << 30;
  // No "network": the pipeline's sandbox config decides (default "install": package installs alone
  // reach the network). The verify stage asks for "none" itself.
  json request{{"workspace", ctx.workspace_dir().string()}, {"limits", limits}};
  if (!ctx.sandbox.image.empty()) request["image"] = ctx.sandbox.image;
  const json env = ctx.plan.contains("env") && ctx.plan["env"].is_object() ? ctx.plan["env"] : json::object();
  if (ctx.gpu) {
    const auto& g = ctx.gpu->gpu;
    request["gpu"] = json{{"index", g.index},
                          {"render_minor", g.render_minor},
                          {"host_kfd", ctx.gpu->kfd},
                          {"host_render", g.render_node},
                          {"visible_devices", ctx.gpu->env.at("HIP_VISIBLE_DEVICES")}};
  }
  if (!env.empty()) request["env"] = env;
  add_asset_mount(ctx, request);
  return request;
}

stage_step environment_step() {
  stage_step s;
  s.name = "environment";
  s.run = run_environment;
  return s;
}

}  // namespace r2r::run
