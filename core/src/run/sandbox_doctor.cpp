// SPDX-License-Identifier: MIT
#include "sandbox_doctor.hpp"

#include "run_assets.hpp"

#include <r2r/core/gpu_topology.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/support/http/url.hpp>

#include <cstdlib>

namespace r2r::run {
namespace {

struct probe {
  std::string name;  // "docker", "podman", "local"
  std::string plugin_id;
  nlohmann::json config;
  std::string endpoint;
  bool answered = false;
  nlohmann::json info;
  std::string problem;
};

std::string socket_from_env(const char* variable, const std::string& fallback) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') return fallback;
  const std::string v = value;
  return v.rfind("unix://", 0) == 0 ? v.substr(7) : v;
}

void run_probe(const core::plugin_registry& registry, probe& p) {
  const auto* plugin = registry.find(p.plugin_id);
  if (plugin == nullptr) {
    p.problem = "plugin " + p.plugin_id + " is not installed on the plugin path";
    return;
  }
  auto instance = core::plugin_instance::create(*plugin, p.config);
  if (!instance) {
    p.problem = instance.error().message;
    return;
  }
  auto info = (*instance)->call("info", nlohmann::json::object());
  if (!info) {
    p.problem = info.error().message;
    return;
  }
  p.answered = true;
  p.info = *info;
}

}  // namespace

nlohmann::json sandbox_doctor(const core::plugin_registry& registry) {
  std::vector<probe> probes;
  const std::string docker_socket = socket_from_env("DOCKER_HOST", "/var/run/docker.sock");
  const std::string podman_socket = socket_from_env("CONTAINER_HOST", "/run/podman/podman.sock");
  probes.push_back({"docker", "r2r.sandbox.docker", {{"socket", docker_socket}}, docker_socket, false, {}, {}});
  if (podman_socket != docker_socket) {
    probes.push_back({"podman", "r2r.sandbox.docker", {{"socket", podman_socket}}, podman_socket, false, {}, {}});
  }
  probes.push_back({"local", "r2r.sandbox.local", nlohmann::json::object(), "/usr/bin/bwrap", false, {}, {}});
  for (auto& p : probes) run_probe(registry, p);

  const char* sysroot = std::getenv("R2R_SYSROOT");
  const auto gpus = core::discover_amd_gpus(sysroot != nullptr && *sysroot != '\0' ? sysroot : "/");

  bool any_engine = false;
  bool container_engine = false;
  for (const auto& p : probes) {
    any_engine = any_engine || p.answered;
    container_engine = container_engine || (p.answered && p.name != "local");
  }
  std::vector<std::string> can, cannot;
  if (container_engine) {
    can.push_back("run commands in containers with limits, the network policy, checkpoints and rollback");
  } else {
    cannot.push_back("run container sandboxes: no Docker Engine API answered");
  }
  if (probes.back().answered)
    can.push_back("run commands in the local bubblewrap sandbox (network policy, read-only system)");
  if (!gpus.gpus.empty() && gpus.kfd_present) {
    can.push_back("run GPU workloads pinned to one of " + std::to_string(gpus.gpus.size()) +
                  " AMD GPU(s) and collect runtime evidence (Mode 1/2 verification)");
  } else {
    cannot.push_back("execute GPU kernels or verify a port (Mode 1/2): " + gpus.summary() +
                     "; device pass-through is only checked with substitute devices");
  }

  nlohmann::json j{{"engines", nlohmann::json::array()},
                   {"gpus", nlohmann::json::array()},
                   {"kfd_present", gpus.kfd_present},
                   {"gpu_summary", gpus.summary()},
                   {"any_engine", any_engine},
                   {"can", can},
                   {"cannot", cannot}};
  for (const auto& p : probes) {
    nlohmann::json e{{"name", p.name}, {"plugin", p.plugin_id}, {"endpoint", p.endpoint}, {"answered", p.answered}};
    if (p.answered) {
      e["engine"] = p.info.value("engine", "");
      e["version"] = p.info.value("version", "");
      e["api_version"] = p.info.value("api_version", "");
      e["network"] = p.info.value("network", "");
      e["network_target"] = p.info.value("network_target", "");
    } else {
      e["problem"] = p.problem;
    }
    j["engines"].push_back(e);
  }
  // docs/run.md, "Assets": fetched by repo2rocm on the host, never from a sandbox.
  const auto hub = hub_source_from_environment();
  j["assets"] = {{"endpoint", support::http::redact_url(hub.endpoint)},
                 {"token", !hub.token.empty()},
                 {"mount", assets_mount},
                 {"fetched_by", "repo2rocm on the host (libcurl, the Hub HTTP API), not from a sandbox"}};
  for (const auto& g : gpus.gpus) {
    j["gpus"].push_back({{"index", g.index},
                         {"node", g.node},
                         {"gfx", g.gfx},
                         {"gfx_target_version", g.gfx_target_version},
                         {"render_node", g.render_node}});
  }
  return j;
}

}  // namespace r2r::run
