// SPDX-License-Identifier: MIT
#include "run_environment.hpp"

#include <cstdlib>

namespace r2r::cli::run {
namespace {

using nlohmann::json;

struct candidate {
  std::string plugin_id;
  json config;
  std::string where;  // for messages
};

std::string socket_from_env(const char* variable, const std::string& fallback) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') return fallback;
  const std::string v = value;
  return v.rfind("unix://", 0) == 0 ? v.substr(7) : v;
}

std::vector<candidate> candidates(const run_context& ctx) {
  for (const auto& s : ctx.pipeline->stages) {
    if (s.stage == "sandbox") return {{s.plugin.use, s.plugin.config, "the pipeline's sandbox stage"}};
  }
  std::vector<candidate> out;
  const std::string docker = socket_from_env("DOCKER_HOST", "/var/run/docker.sock");
  out.push_back({"r2r.sandbox.docker", {{"socket", docker}}, docker});
  const std::string podman = socket_from_env("CONTAINER_HOST", "/run/podman/podman.sock");
  if (podman != docker) out.push_back({"r2r.sandbox.docker", {{"socket", podman}}, podman});
  out.push_back({"r2r.sandbox.local", json::object(), "bubblewrap"});
  return out;
}

stage_result failed(std::string message) {
  stage_result r;
  r.status = "failed";
  r.message = std::move(message);
  return r;
}

stage_result run_environment(run_context& ctx) {
  std::string tried;
  for (const auto& c : candidates(ctx)) {
    const auto* plugin = ctx.registry->find(c.plugin_id);
    if (plugin == nullptr) {
      tried += "; " + c.plugin_id + " is not on the plugin path";
      continue;
    }
    auto instance = core::plugin_instance::create(*plugin, c.config);
    if (!instance) {
      tried += "; " + c.plugin_id + " (" + c.where + "): " + instance.error().message;
      continue;
    }
    auto info = (*instance)->call("info", json::object());
    if (!info) {
      tried += "; " + c.plugin_id + " (" + c.where + "): " + info.error().message;
      continue;
    }
    ctx.sandbox.plugin_id = c.plugin_id;
    ctx.sandbox.config = c.config;
    ctx.sandbox.engine = info->value("engine", "");
    ctx.sandbox.instance = std::move(*instance);
    break;
  }
  if (!ctx.sandbox.instance) return failed("no sandbox answered" + tried);

  stage_result r;
  r.results = json{{"sandbox", ctx.sandbox.plugin_id}, {"engine", ctx.sandbox.engine}};
  if (ctx.sandbox.engine == "local" || ctx.sandbox.plugin_id == "r2r.sandbox.local") {
    r.message = "no container engine answered" + tried +
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
  if (!present->value("exists", false))
    return failed("the base image " + base + " is not in the " + ctx.sandbox.engine +
                  " image store and images are never pulled; pull it first (`docker pull " + base +
                  "`) or pass --base-image with an image that is present");
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

}  // namespace

json sandbox_create_request(const run_context& ctx) {
  json limits{{"pids", 4096}};
  if (ctx.sandbox.plugin_id != "r2r.sandbox.local") limits["memory_bytes"] = 16LL << 30;
  json request{{"workspace", ctx.workspace_dir().string()}, {"network", false}, {"limits", limits}};
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
  return request;
}

stage_step environment_step() {
  stage_step s;
  s.name = "environment";
  s.run = run_environment;
  return s;
}

}  // namespace r2r::cli::run
