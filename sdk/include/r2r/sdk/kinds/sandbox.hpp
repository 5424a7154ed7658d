// SPDX-License-Identifier: MIT
// Typed messages of the sandbox kind. The wire shapes are plugin_api/schemas/sandbox/*.schema.json;
// these structs mirror them. A sandbox plugin implements, for T:
//   info_response info(const info_request&);
//   create_response create(const create_request&);
//   exec_response exec(const exec_request&, r2r::sdk::call_context&);
//   checkpoint_response checkpoint(const checkpoint_request&);
//   rollback_response rollback(const rollback_request&);
//   copy_response copy_in(const copy_request&);   copy_response copy_out(const copy_request&);
//   removed_response destroy(const destroy_request&);   removed_response cleanup(const cleanup_request&);
// and lists them with r2r::sdk::sandbox::methods<T>(). A plugin whose engine (socket, binary) is
// absent throws r2r::sdk::unavailable from every method, never from its constructor.
#pragma once

#include <r2r/sdk/methods.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::sdk::sandbox {

/// Resource limits; 0 means "the plugin's configured default".
struct limits {
  std::int64_t memory_bytes = 0;
  double cpus = 0;
  std::int64_t pids = 0;
  std::int64_t shm_bytes = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(limits, memory_bytes, cpus, pids, shm_bytes)

/// The one GPU a sandbox is pinned to, as resolved on the host (core's gpu_topology). Host device
/// paths are passed through; inside the sandbox they appear as /dev/kfd and /dev/dri/renderD<minor>.
struct gpu {
  int index = 0;           // index among the host's AMD GPUs
  int render_minor = 128;  // N of /dev/dri/renderD<N> inside the sandbox
  std::string host_kfd = "/dev/kfd";
  std::string host_render;      // empty: /dev/dri/renderD<render_minor>
  std::string visible_devices;  // HIP_/ROCR_VISIBLE_DEVICES inside; empty: "0"
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(gpu, index, render_minor, host_kfd, host_render, visible_devices)

/// The network policy of a sandbox:
///   "none"    no exec ever reaches the network;
///   "install" only execs the caller marks `install` (package installs) reach it, each for its own
///             duration; every other exec runs with no network (the default);
///   "always"  every exec reaches it (only when the plan says the workload needs external assets).
/// The legacy boolean is accepted: true means "always", false means "none".
/// Throws nlohmann::json::other_error for any other value.
inline std::string network_policy_of(const nlohmann::json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "always" : "none";
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (s == "none" || s == "install" || s == "always") return s;
  }
  throw nlohmann::json::other_error::create(
      501, "network must be \"none\", \"install\" or \"always\" (or the legacy true/false); found " + v.dump(), &v);
}

/// A host directory bound read-only into a sandbox (the run's asset cache). The plugin checks it
/// at create (check_mounts): `source` an existing absolute host directory, `target` an absolute path
/// that is not `/`, not the workspace nor beneath or above it, with no `..`, `:` or `,`.
struct ro_mount {
  std::string source;
  std::string target;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ro_mount, source, target)

struct create_request {
  std::string image;      // container image (engines with images); ignored by the local sandbox
  std::string workspace;  // host directory; empty: the plugin makes a private one
  std::string network;    // "none" | "install" | "always"; empty: the plugin's configured policy
  sandbox::limits limits;
  std::optional<sandbox::gpu> gpu;
  std::map<std::string, std::string> env;
  std::string seccomp;           // "default" | "unconfined"; empty: plugin default
  std::string ipc;               // "private" | "host"; empty: "private"
  std::vector<ro_mount> mounts;  // read-only binds besides the workspace, in order
};
inline void from_json(const nlohmann::json& j, create_request& r) {
  r.image = j.value("image", std::string());
  r.workspace = j.value("workspace", std::string());
  r.network = j.contains("network") && !j.at("network").is_null() ? network_policy_of(j.at("network")) : "";
  r.limits = j.value("limits", sandbox::limits{});
  if (j.contains("gpu") && !j.at("gpu").is_null()) r.gpu = j.at("gpu").get<sandbox::gpu>();
  r.env = j.value("env", std::map<std::string, std::string>{});
  r.seccomp = j.value("seccomp", std::string());
  r.ipc = j.value("ipc", std::string());
  r.mounts = j.value("mounts", std::vector<ro_mount>{});
}
inline void to_json(nlohmann::json& j, const create_request& r) {
  j = nlohmann::json{{"image", r.image}, {"workspace", r.workspace}, {"limits", r.limits}, {"env", r.env}};
  if (!r.network.empty()) j["network"] = r.network;
  if (r.gpu) j["gpu"] = *r.gpu;
  if (!r.seccomp.empty()) j["seccomp"] = r.seccomp;
  if (!r.ipc.empty()) j["ipc"] = r.ipc;
  if (!r.mounts.empty()) j["mounts"] = r.mounts;
}

struct create_response {
  std::string sandbox_id;
  std::string engine;                      // "docker", "podman", "bwrap"
  std::string workspace;                   // host directory holding the workspace
  std::string sandbox_workspace;           // the same directory as seen inside
  std::map<std::string, std::string> env;  // variables set inside (GPU pinning included)
  std::string network;                     // the policy in force: "none", "install" or "always"
  std::string image_digest;                // "repo@sha256:…" of the image the sandbox runs, when it came from a
                                           // registry (pin it: a rebuild gets the same bytes); empty otherwise
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(create_response, sandbox_id, engine, workspace, sandbox_workspace, env,
                                                network, image_digest)

struct exec_request {
  std::string sandbox_id;
  std::string command;                // run by /bin/sh -c inside the sandbox
  double timeout_s = 0;               // 0: plugin default
  std::int64_t max_output_bytes = 0;  // per stream; 0: plugin default
  std::map<std::string, std::string> env;
  std::string workdir;   // empty: the sandbox workspace
  bool install = false;  // a package install: under the "install" policy this exec alone gets the
                         // network and the configured index/proxy variables
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(exec_request, sandbox_id, command, timeout_s, max_output_bytes, env,
                                                workdir, install)

/// Output of one stream. `text` is UTF-8 when encoding is "utf-8", else base64 of the raw bytes.
/// When more than the cap was produced, `text` holds the head and the tail around a visible
/// marker line and `truncated` is true; `bytes` is what the command wrote in total.
struct exec_response {
  int exit_code = 0;  // 128+signal when killed
  std::string stdout_text;
  std::string stderr_text;
  std::string stdout_encoding = "utf-8";
  std::string stderr_encoding = "utf-8";
  std::int64_t stdout_bytes = 0;
  std::int64_t stderr_bytes = 0;
  bool truncated = false;
  bool timed_out = false;
  bool oom_killed = false;
  std::int64_t duration_ms = 0;
  bool network = false;  // whether this exec could reach the network
};
inline void to_json(nlohmann::json& j, const exec_response& r) {
  j = nlohmann::json{{"exit_code", r.exit_code},
                     {"stdout", r.stdout_text},
                     {"stderr", r.stderr_text},
                     {"stdout_encoding", r.stdout_encoding},
                     {"stderr_encoding", r.stderr_encoding},
                     {"stdout_bytes", r.stdout_bytes},
                     {"stderr_bytes", r.stderr_bytes},
                     {"truncated", r.truncated},
                     {"timed_out", r.timed_out},
                     {"oom_killed", r.oom_killed},
                     {"duration_ms", r.duration_ms},
                     {"network", r.network}};
}
inline void from_json(const nlohmann::json& j, exec_response& r) {
  r.exit_code = j.at("exit_code").get<int>();
  r.stdout_text = j.value("stdout", std::string());
  r.stderr_text = j.value("stderr", std::string());
  r.stdout_encoding = j.value("stdout_encoding", std::string("utf-8"));
  r.stderr_encoding = j.value("stderr_encoding", std::string("utf-8"));
  r.stdout_bytes = j.value("stdout_bytes", std::int64_t{0});
  r.stderr_bytes = j.value("stderr_bytes", std::int64_t{0});
  r.truncated = j.value("truncated", false);
  r.timed_out = j.value("timed_out", false);
  r.oom_killed = j.value("oom_killed", false);
  r.duration_ms = j.value("duration_ms", std::int64_t{0});
  r.network = j.value("network", false);
}

struct checkpoint_request {
  std::string sandbox_id;
  std::string name;  // [a-z0-9_.-]+, unique per sandbox
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(checkpoint_request, sandbox_id, name)

struct checkpoint_response {
  std::string checkpoint;  // the name
  std::string image;       // the committed image id; empty for engines without images
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(checkpoint_response, checkpoint, image)

struct rollback_request {
  std::string sandbox_id;
  std::string checkpoint;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(rollback_request, sandbox_id, checkpoint)

struct rollback_response {
  std::string sandbox_id;  // unchanged: the sandbox keeps its id across a rollback
  std::string checkpoint;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(rollback_response, sandbox_id, checkpoint)

/// copy_in: host_path (file or directory) -> sandbox_path (an existing directory inside).
/// copy_out: sandbox_path (file or directory inside) -> host_path (an existing host directory).
struct copy_request {
  std::string sandbox_id;
  std::string host_path;
  std::string sandbox_path;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(copy_request, sandbox_id, host_path, sandbox_path)

struct copy_response {
  std::int64_t bytes = 0;  // size of the archive transferred
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(copy_response, bytes)

struct destroy_request {
  std::string sandbox_id;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(destroy_request, sandbox_id)

/// cleanup removes every object carrying this plugin's label; with `all` false only this
/// instance's objects. Used after a crash, and by tests to prove nothing is left.
struct cleanup_request {
  bool all = false;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(cleanup_request, all)

struct removed_response {
  std::vector<std::string> removed;  // "container <id>", "image <id>", "directory <path>"
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(removed_response, removed)

struct info_request {};
inline void from_json(const nlohmann::json& j, info_request&) {
  if (!j.is_object()) throw nlohmann::json::type_error::create(302, "info request must be an object", &j);
}

struct info_response {
  std::string engine;                 // "docker", "podman", "bwrap"
  std::string version;                // engine version
  std::string api_version;            // Engine API version spoken; empty for bwrap
  std::string endpoint;               // socket or binary path
  std::vector<std::string> features;  // e.g. "checkpoint", "gpu-passthrough", "network-none"
  std::string network;                // the configured policy: "none", "install" or "always"
  std::string network_target;         // what a networked exec is attached to
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(info_response, engine, version, api_version, endpoint, features,
                                                network, network_target)

/// The method table every sandbox exposes.
template <class T>
method_table<T> methods() {
  return {method("info", &T::info),         method("create", &T::create),
          method("exec", &T::exec),         method("checkpoint", &T::checkpoint),
          method("rollback", &T::rollback), method("copy_in", &T::copy_in),
          method("copy_out", &T::copy_out), method("destroy", &T::destroy),
          method("cleanup", &T::cleanup)};
}

}  // namespace r2r::sdk::sandbox
