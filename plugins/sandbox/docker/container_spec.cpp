// SPDX-License-Identifier: MIT
#include "container_spec.hpp"

#include <r2r/sdk/error.hpp>

#include <cmath>

namespace r2r::plugins::sandbox::docker {

std::map<std::string, std::string> sandbox_env(const sdk::sandbox::create_request& plan) {
  auto env = plan.env;
  if (plan.gpu) {
    const std::string visible = plan.gpu->visible_devices.empty() ? "0" : plan.gpu->visible_devices;
    env["HIP_VISIBLE_DEVICES"] = visible;
    env["ROCR_VISIBLE_DEVICES"] = visible;
  }
  return env;
}

nlohmann::json container_spec(const sdk::sandbox::create_request& plan, const spec_inputs& in) {
  const std::string seccomp = plan.seccomp.empty() ? in.default_seccomp : plan.seccomp;
  if (seccomp != "default" && seccomp != "unconfined") {
    throw sdk::invalid_argument("seccomp must be \"default\" or \"unconfined\"; found \"" + seccomp + "\"");
  }
  const std::string ipc = plan.ipc.empty() ? "private" : plan.ipc;
  if (ipc != "private" && ipc != "host") {
    throw sdk::invalid_argument("ipc must be \"private\" or \"host\"; found \"" + ipc + "\"");
  }
  nlohmann::json security = nlohmann::json::array({"no-new-privileges"});
  if (seccomp == "unconfined") security.push_back("seccomp=unconfined");

  nlohmann::json devices = nlohmann::json::array();
  nlohmann::json groups = nlohmann::json::array();
  if (plan.gpu) {
    const auto& g = *plan.gpu;
    const std::string inside_render = "/dev/dri/renderD" + std::to_string(g.render_minor);
    const std::string host_render = g.host_render.empty() ? inside_render : g.host_render;
    devices.push_back({{"PathOnHost", g.host_kfd}, {"PathInContainer", "/dev/kfd"}, {"CgroupPermissions", "rwm"}});
    devices.push_back({{"PathOnHost", host_render}, {"PathInContainer", inside_render}, {"CgroupPermissions", "rwm"}});
    for (const auto& gid : in.gpu_groups) groups.push_back(gid);
  }
  nlohmann::json env = nlohmann::json::array();
  for (const auto& [k, v] : sandbox_env(plan)) env.push_back(k + "=" + v);

  if (in.network_policy != "none" && in.network_policy != "install" && in.network_policy != "always") {
    throw sdk::invalid_argument("network must be \"none\", \"install\" or \"always\"; found \"" + in.network_policy +
                                "\"");
  }
  // A container created with NetworkMode "none" can never be attached to a network later, so an
  // "install" sandbox is created on the network and detached before it starts (docker_sandbox).
  const bool networked = in.network_policy != "none";
  const auto memory = in.limits.memory_bytes;
  // The workspace is the only writable bind; the plan's mounts (checked by check_mounts) are read-only.
  nlohmann::json binds = nlohmann::json::array({in.host_workspace + ":" + in.sandbox_workspace + ":rw"});
  for (const auto& m : plan.mounts) binds.push_back(m.source + ":" + m.target + ":ro");
  nlohmann::json host{
      {"Binds", binds},
      {"NetworkMode", networked ? in.network_mode_when_needed : "none"},
      {"Memory", memory},
      {"MemorySwap", memory},  // equal to Memory: no swap beyond the limit, so OOM is an OOM
      {"NanoCpus", static_cast<std::int64_t>(std::llround(in.limits.cpus * 1e9))},
      {"PidsLimit", in.limits.pids},
      {"ShmSize", in.limits.shm_bytes},
      {"IpcMode", ipc == "host" ? "host" : "private"},
      {"Privileged", false},
      {"Devices", devices},
      {"GroupAdd", groups},
      {"SecurityOpt", security},
      {"CapDrop", {"NET_RAW", "MKNOD", "AUDIT_WRITE", "SYS_CHROOT"}},
      {"Ulimits",
       {{{"Name", "core"}, {"Soft", 0}, {"Hard", 0}},
        {{"Name", "nofile"}, {"Soft", in.open_files}, {"Hard", in.open_files}},
        {{"Name", "nproc"}, {"Soft", in.processes}, {"Hard", in.processes}}}},
      {"AutoRemove", false},
  };
  return nlohmann::json{{"Image", in.image},
                        {"Cmd", in.keepalive_cmd},
                        {"Env", env},
                        {"WorkingDir", in.sandbox_workspace},
                        {"Labels", in.labels},
                        {"NetworkDisabled", !networked},
                        {"AttachStdout", false},
                        {"AttachStderr", false},
                        {"Tty", false},
                        {"HostConfig", host}};
}

}  // namespace r2r::plugins::sandbox::docker
