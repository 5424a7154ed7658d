// SPDX-License-Identifier: MIT
#include "docker_sandbox.hpp"

#include "container_spec.hpp"
#include "output_encoding.hpp"
#include "pull_progress.hpp"
#include "registry_auth.hpp"
#include "sandbox_setup.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/support/safe_fs.hpp>
#include <r2r/support/tar_archive.hpp>
#include <r2r/support/workspace_snapshot.hpp>

#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <random>
#include <regex>
#include <sstream>

namespace r2r::plugins::sandbox::docker {
namespace fs = std::filesystem;
namespace sb = sdk::sandbox;

namespace {

std::string random_token() {
  std::random_device rd;
  std::ostringstream out;
  out << std::hex;
  for (int i = 0; i < 3; ++i) out << (rd() & 0xFFFF);
  return out.str();
}

std::chrono::milliseconds seconds(double s) {
  return std::chrono::milliseconds(static_cast<long long>(s * 1000));
}

// Numeric gids of the host's video and render groups (device nodes are owned by them).
std::vector<std::string> gpu_group_ids() {
  std::vector<std::string> ids;
  for (const char* name : {"video", "render"}) {
    if (const group* g = getgrnam(name); g != nullptr) ids.push_back(std::to_string(g->gr_gid));
  }
  return ids;
}

// A ulimit for sandboxes: `cap`, or less when this process's hard limit is lower (an engine
// started beside it usually shares that limit, and runc cannot raise it).
std::int64_t hard_limit_capped(int resource, rlim_t cap) {
  rlimit r{};
  if (getrlimit(resource, &r) != 0 || r.rlim_max == RLIM_INFINITY) return static_cast<std::int64_t>(cap);
  return static_cast<std::int64_t>(std::min<rlim_t>(r.rlim_max, cap));
}

// "repo@sha256:…" of an inspected image: the RepoDigests entry of `ref`'s repository, else the
// first one; "" for an image with none (built or imported locally).
std::string pinned_digest(const nlohmann::json& image, const std::string& ref) {
  const auto digests = image.value("RepoDigests", nlohmann::json::array());
  if (!digests.is_array() || digests.empty()) return {};
  const std::string repo = split_image_ref(ref).name;
  for (const auto& d : digests) {
    if (d.is_string() && d.get<std::string>().rfind(repo + "@", 0) == 0) return d.get<std::string>();
  }
  return digests.front().is_string() ? digests.front().get<std::string>() : std::string();
}

long long parse_counter(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string k;
  long long v;
  while (in >> k >> v) {
    if (k == key) return v;
  }
  return -1;
}

}  // namespace

void from_json(const nlohmann::json& j, docker_sandbox::config& c) {
  const docker_sandbox::config d;
  // No socket in the config: DOCKER_HOST (unix:// only), as the docker CLI does, else the default.
  std::string fallback = d.socket;
  if (const char* host = std::getenv("DOCKER_HOST"); host != nullptr && *host != '\0') {
    const std::string h = host;
    if (h.rfind("unix://", 0) == 0) fallback = h.substr(7);
  }
  c.socket = j.value("socket", fallback);
  c.api_version = j.value("api_version", d.api_version);
  c.label = j.value("label", d.label);
  c.default_image = j.value("default_image", d.default_image);
  c.sandbox_workspace = j.value("sandbox_workspace", d.sandbox_workspace);
  c.state_dir = j.value("state_dir", d.state_dir);
  c.default_limits = j.value("default_limits", d.default_limits);
  if (c.default_limits.memory_bytes <= 0) c.default_limits.memory_bytes = d.default_limits.memory_bytes;
  if (c.default_limits.cpus <= 0) c.default_limits.cpus = d.default_limits.cpus;
  if (c.default_limits.pids <= 0) c.default_limits.pids = d.default_limits.pids;
  if (c.default_limits.shm_bytes <= 0) c.default_limits.shm_bytes = d.default_limits.shm_bytes;
  c.default_timeout_s = j.value("default_timeout_s", d.default_timeout_s);
  c.max_output_bytes = j.value("max_output_bytes", d.max_output_bytes);
  c.api_timeout_s = j.value("api_timeout_s", d.api_timeout_s);
  c.seccomp = j.value("seccomp", d.seccomp);
  c.network = plugins::sandbox::configured_policy(j);
  c.network_mode = j.value("network_mode", d.network_mode);
  c.package_index = j.value("package_index", d.package_index);
  c.keepalive_cmd = j.value("keepalive_cmd", d.keepalive_cmd);
  c.no_pull = j.value("no_pull", d.no_pull);
  c.pull_progress = j.value("pull_progress", d.pull_progress);
}

docker_sandbox::docker_sandbox(const config& cfg, const sdk::host& host)
    : cfg_(cfg),
      host_(host),
      engine_(cfg.socket, cfg.api_version, seconds(cfg.api_timeout_s)),
      owner_(random_token()) {}

docker_sandbox::~docker_sandbox() {
  std::vector<std::string> removed;
  for (auto& [id, record] : sandboxes_) {
    try {
      remove_sandbox(id, record, removed);
    } catch (const std::exception& e) {
      host_.warn("could not remove sandbox " + id + ": " + e.what() + " (run cleanup with all=true)");
    }
  }
  for (const auto& image : built_images_) {
    try {
      engine_.remove_image(image);
    } catch (const std::exception& e) {
      host_.warn("could not remove image " + image + ": " + e.what());
    }
  }
  // What a failed build left with this instance's labels (Podman labels its intermediate images);
  // asked only when a build ran, so an instance that never reached an engine stays quiet.
  if (build_started_) {
    try {
      for (const auto& image : engine_.images_with_label(cfg_.label + ".owner", owner_)) engine_.remove_image(image);
    } catch (const std::exception& e) {
      host_.warn(std::string("could not remove the images a failed build left: ") + e.what());
    }
  }
  if (!state_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(state_dir_, ec);
  }
}

sdk::method_table<docker_sandbox> docker_sandbox::methods() {
  auto table = sb::methods<docker_sandbox>();
  table.push_back(sdk::method("image_inspect", &docker_sandbox::image_inspect));
  table.push_back(sdk::method("image_build", &docker_sandbox::image_build));
  table.push_back(sdk::method("image_pull", &docker_sandbox::image_pull));
  return table;
}

const fs::path& docker_sandbox::state_dir() {
  if (state_dir_.empty()) {
    const fs::path base = cfg_.state_dir.empty() ? fs::temp_directory_path() : fs::path(cfg_.state_dir);
    fs::path dir = base / ("r2r-docker-" + owner_);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw sdk::failed("cannot create the state directory " + dir.string() + ": " + ec.message());
    fs::permissions(dir, fs::perms::owner_all, ec);
    state_dir_ = std::move(dir);
  }
  return state_dir_;
}

std::map<std::string, std::string> docker_sandbox::labels(const std::string& extra_key,
                                                          const std::string& value) const {
  std::map<std::string, std::string> l{{cfg_.label, "1"}, {cfg_.label + ".owner", owner_}};
  if (!extra_key.empty()) l[cfg_.label + "." + extra_key] = value;
  return l;
}

void docker_sandbox::require_engine() const {
  struct stat st {};
  if (::stat(cfg_.socket.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
    throw sdk::unavailable("no container engine socket at " + cfg_.socket +
                           " (start dockerd or `podman system service`, or set \"socket\" in the plugin config)");
  }
}

docker_sandbox::sandbox_record& docker_sandbox::find(const std::string& id) {
  auto it = sandboxes_.find(id);
  if (it == sandboxes_.end()) {
    std::string known;
    for (const auto& [k, v] : sandboxes_) known += (known.empty() ? "" : ", ") + k;
    throw sdk::invalid_argument("no sandbox '" + id + "' in this instance (known: " +
                                (known.empty() ? std::string("none; call create first") : known) + ")");
  }
  return it->second;
}

sb::info_response docker_sandbox::info(const sb::info_request&) {
  engine_.ping();
  const auto v = engine_.version();
  sb::info_response out;
  out.engine = "docker";
  for (const auto& c : v.value("Components", nlohmann::json::array())) {
    if (c.value("Name", std::string()).find("Podman") != std::string::npos) out.engine = "podman";
  }
  out.version = v.value("Version", std::string());
  out.api_version = v.value("ApiVersion", std::string());
  out.endpoint = engine_.socket();
  out.features = {"checkpoint", "rollback",    "copy",         "gpu-passthrough", "network-policy",
                  "limits",     "image-build", "network-none", "image-pull"};
  out.network = cfg_.network;
  out.network_target = "engine network " + cfg_.network_mode;
  return out;
}

std::string docker_sandbox::start_container(const std::string& sandbox_id, const sandbox_record& record,
                                            const std::string& image) {
  spec_inputs in;
  in.image = image;
  in.host_workspace = record.workspace.string();
  in.sandbox_workspace = cfg_.sandbox_workspace;
  const auto& p = record.plan.limits;
  const auto& d = cfg_.default_limits;
  in.limits = {p.memory_bytes > 0 ? p.memory_bytes : d.memory_bytes, p.cpus > 0 ? p.cpus : d.cpus,
               p.pids > 0 ? p.pids : d.pids, p.shm_bytes > 0 ? p.shm_bytes : d.shm_bytes};
  in.keepalive_cmd = cfg_.keepalive_cmd;
  in.labels = labels("sandbox", sandbox_id);
  // A caller's workspace is named on its container, so the next sandbox on it can find this one.
  if (!record.own_workspace) in.labels[cfg_.label + ".workspace"] = record.workspace.string();
  in.gpu_groups = gpu_group_ids();
  in.network_policy = record.network;
  in.network_mode_when_needed = cfg_.network_mode;
  in.default_seccomp = cfg_.seccomp;
  in.open_files = hard_limit_capped(RLIMIT_NOFILE, 65536);
  in.processes = hard_limit_capped(RLIMIT_NPROC, 32768);
  const auto body = container_spec(record.plan, in);
  const std::string id = engine_.create_container(body, record.name);
  try {
    // "install": created on the network (a "none" container can never be attached later) and
    // detached before its first process runs; checked, not assumed.
    if (record.network == "install") {
      engine_.disconnect_network(cfg_.network_mode, id);
      if (const auto left = engine_.container_networks(id); !left.empty()) {
        throw sdk::failed("the sandbox container is still attached to network " + left.front() +
                          " after detaching it; refusing to start it under the \"install\" policy");
      }
    }
    engine_.start_container(id);
  } catch (...) {
    try {
      engine_.remove_container(id);
    } catch (...) {
    }
    throw;
  }
  return id;
}

sb::create_response docker_sandbox::create(const sb::create_request& request) {
  require_engine();
  const std::string image = request.image.empty() ? cfg_.default_image : request.image;
  if (image.empty()) throw sdk::invalid_argument("create: no \"image\" in the request and no default_image in config");
  engine_.ping();
  bool pulled = false;
  const auto inspected = ensure_image(image, {}, pulled);
  const std::string id = "sbx" + std::to_string(next_id_++);
  sandbox_record record;
  record.plan = request;
  record.network = plugins::sandbox::effective_policy(request.network, cfg_.network);
  record.image = image;
  record.name = "r2r-" + owner_ + "-" + id;
  // Devices and mounts first: a bad request must not leave a freshly created workspace behind.
  if (request.gpu) plugins::sandbox::require_gpu_devices(*request.gpu);
  record.plan.mounts = plugins::sandbox::check_mounts(request.mounts, cfg_.sandbox_workspace);
  const auto workspace = plugins::sandbox::prepare_workspace(request.workspace, state_dir(), id);
  record.workspace = workspace.path;
  record.own_workspace = workspace.owned;
  // One live sandbox per workspace: a container of an earlier sandbox on the same host workspace
  // (an executor SIGKILLed mid-command, resumed now) is removed, its processes killed, before the
  // new one starts, so nothing of it writes into the workspace after this returns.
  if (!record.own_workspace) {
    for (const auto& stale : engine_.containers_with_label(cfg_.label + ".workspace", record.workspace.string())) {
      engine_.remove_container(stale);
      R2R_LOG(host_, warn,
              "removed container " << stale.substr(0, 12) << " of an earlier sandbox on " << record.workspace.string());
    }
  }
  try {
    record.container_id = start_container(id, record, image);
  } catch (...) {
    if (record.own_workspace) fs::remove_all(record.workspace);
    throw;
  }
  R2R_LOG(host_, info, "sandbox " << id << ": container " << record.container_id.substr(0, 12) << " from " << image);
  sb::create_response out;
  out.sandbox_id = id;
  out.engine = "docker";
  out.workspace = record.workspace.string();
  out.sandbox_workspace = cfg_.sandbox_workspace;
  out.env = sandbox_env(request);
  out.network = record.network;
  out.image_digest = pinned_digest(inspected, image);
  if (record.network == "always")
    R2R_LOG(host_, info, "sandbox " << id << ": network always on (" << cfg_.network_mode << ")");
  sandboxes_.emplace(id, std::move(record));
  return out;
}

long long docker_sandbox::oom_kill_count(const std::string& container) const {
  // cgroup v2 memory.events, else v1 memory.oom_control; both have an "oom_kill N" line.
  for (const char* file : {"/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"}) {
    const auto [code, text] = engine_.exec_simple(container, {"cat", file});
    if (code == 0) {
      const auto n = parse_counter(text, "oom_kill");
      if (n >= 0) return n;
    }
  }
  return -1;
}

sb::exec_response docker_sandbox::exec(const sb::exec_request& request, sdk::call_context& ctx) {
  require_engine();
  if (request.command.empty()) throw sdk::invalid_argument("exec: \"command\" is empty");
  auto& record = find(request.sandbox_id);
  if (record.container_id.empty()) {
    throw sdk::failed("sandbox " + request.sandbox_id + " has no container (it was removed when it could not be " +
                      "detached from the network); roll back to a checkpoint or create a new sandbox");
  }
  exec_spec spec;
  spec.cmd = exec_wrapper(request.command);
  std::map<std::string, std::string> env;
  if (request.install) env = plugins::sandbox::install_env(cfg_.package_index);
  for (const auto& [k, v] : request.env) env[k] = v;
  for (const auto& [k, v] : env) spec.env.push_back(k + "=" + v);
  spec.workdir = request.workdir.empty() ? cfg_.sandbox_workspace : request.workdir;
  spec.timeout = seconds(request.timeout_s > 0 ? request.timeout_s : cfg_.default_timeout_s);
  spec.max_output_bytes =
      static_cast<std::size_t>(request.max_output_bytes > 0 ? request.max_output_bytes : cfg_.max_output_bytes);
  spec.cancelled = [&ctx] { return ctx.cancelled(); };
  const bool attach = record.network == "install" && request.install;
  auto outcome = attach ? exec_with_network(record, request.sandbox_id, spec) : engine_.exec(record.container_id, spec);
  if (outcome.cancelled) throw sdk::cancelled("exec cancelled by the host; the command was killed");

  sb::exec_response out;
  out.exit_code = outcome.exit_code;
  out.timed_out = outcome.timed_out;
  if (outcome.exit_code == 137 && !outcome.timed_out) {
    const long long count = oom_kill_count(record.container_id);
    out.oom_killed = count > record.oom_seen;
    if (count >= 0) record.oom_seen = count;
  }
  auto o = plugins::sandbox::encode_output(outcome.out.render());
  auto e = plugins::sandbox::encode_output(outcome.err.render());
  out.stdout_text = std::move(o.text);
  out.stdout_encoding = o.encoding;
  out.stderr_text = std::move(e.text);
  out.stderr_encoding = e.encoding;
  out.stdout_bytes = static_cast<std::int64_t>(outcome.out.total_bytes());
  out.stderr_bytes = static_cast<std::int64_t>(outcome.err.total_bytes());
  out.truncated = outcome.out.truncated() || outcome.err.truncated();
  out.duration_ms = outcome.duration.count();
  out.network = plugins::sandbox::exec_gets_network(record.network, request.install);
  R2R_LOG(host_, debug,
          "sandbox " << request.sandbox_id << ": exit " << out.exit_code << (out.timed_out ? " (timed out)" : "")
                     << (out.oom_killed ? " (OOM)" : "") << " in " << out.duration_ms << " ms");
  return out;
}

exec_outcome docker_sandbox::exec_with_network(sandbox_record& record, const std::string& sandbox_id,
                                               const exec_spec& spec) {
  // A background job of an earlier exec would share the window: kill everything but init (twice,
  // for a process that forks while the first signal goes round).
  engine_.exec_simple(record.container_id, {"/bin/sh", "-c", "kill -9 -1 2>/dev/null; kill -9 -1 2>/dev/null; true"});
  auto detach = [&]() -> std::string {
    try {
      engine_.disconnect_network(cfg_.network_mode, record.container_id);
      if (engine_.container_networks(record.container_id).empty()) return {};
      return "the container is still attached after the detach";
    } catch (const std::exception& e) {
      return e.what();
    }
  };
  auto fail_closed = [&](const std::string& why) {
    std::string removal;
    try {
      engine_.remove_container(record.container_id);
      record.container_id.clear();
    } catch (const std::exception& e) {
      removal = std::string("; removing it failed too: ") + e.what();
    }
    throw sdk::failed("sandbox " + sandbox_id + ": could not detach it from network " + cfg_.network_mode +
                      " after an install (" + why + "); the container was removed so it cannot keep the network" +
                      removal + ". Roll back to a checkpoint or create a new sandbox.");
  };
  exec_outcome outcome;
  try {
    engine_.connect_network(cfg_.network_mode, record.container_id);
    outcome = engine_.exec(record.container_id, spec);
  } catch (...) {
    if (auto why = detach(); !why.empty()) fail_closed(why);
    throw;
  }
  if (auto why = detach(); !why.empty()) fail_closed(why);
  return outcome;
}

sb::checkpoint_response docker_sandbox::checkpoint(const sb::checkpoint_request& request) {
  require_engine();
  static const std::regex name_re("[a-z0-9][a-z0-9_.-]{0,63}");
  if (!std::regex_match(request.name, name_re)) {
    throw sdk::invalid_argument("checkpoint name must match [a-z0-9][a-z0-9_.-]{0,63}; found \"" + request.name + "\"");
  }
  auto& record = find(request.sandbox_id);
  if (record.checkpoints.count(request.name) != 0) {
    throw sdk::invalid_argument("sandbox " + request.sandbox_id + " already has a checkpoint \"" + request.name + "\"");
  }
  checkpoint_record cp;
  cp.snapshot = state_dir() / (request.sandbox_id + "-" + request.name + ".tar");
  tarball::take_snapshot(record.workspace, cp.snapshot);
  try {
    cp.image_id =
        engine_.commit(record.container_id, "r2r-checkpoint-" + owner_, request.sandbox_id + "-" + request.name,
                       labels("checkpoint", request.sandbox_id + "-" + request.name));
  } catch (...) {
    fs::remove(cp.snapshot);
    throw;
  }
  record.checkpoints.emplace(request.name, cp);
  return {request.name, cp.image_id};
}

sb::rollback_response docker_sandbox::rollback(const sb::rollback_request& request) {
  require_engine();
  auto& record = find(request.sandbox_id);
  auto it = record.checkpoints.find(request.checkpoint);
  if (it == record.checkpoints.end()) {
    throw sdk::invalid_argument("sandbox " + request.sandbox_id + " has no checkpoint \"" + request.checkpoint + "\"");
  }
  engine_.remove_container(record.container_id);
  record.container_id.clear();
  tarball::restore_snapshot(it->second.snapshot, record.workspace);
  record.container_id = start_container(request.sandbox_id, record, it->second.image_id);
  record.oom_seen = 0;  // a new container has a new cgroup
  return {request.sandbox_id, request.checkpoint};
}

sb::copy_response docker_sandbox::copy_in(const sb::copy_request& request) {
  require_engine();
  auto& record = find(request.sandbox_id);
  if (request.sandbox_path.empty()) throw sdk::invalid_argument("copy_in: \"sandbox_path\" is required");
  const fs::path source(request.host_path);
  if (!fs::exists(fs::symlink_status(source))) {
    throw sdk::invalid_argument("copy_in: host_path '" + request.host_path + "' does not exist");
  }
  const fs::path tar = state_dir() / ("copy-in-" + std::to_string(next_id_++) + ".tar");
  sb::copy_response out;
  try {
    const std::string name =
        source.filename().empty() ? source.parent_path().filename().string() : source.filename().string();
    tarball::write_tar(source, tar, name);
    out.bytes = static_cast<std::int64_t>(fs::file_size(tar));
    engine_.put_archive(record.container_id, request.sandbox_path, tar);
  } catch (const std::runtime_error& e) {
    fs::remove(tar);
    if (dynamic_cast<const sdk::error*>(&e) != nullptr) throw;
    throw sdk::failed(std::string("copy_in: ") + e.what());
  }
  fs::remove(tar);
  return out;
}

sb::copy_response docker_sandbox::copy_out(const sb::copy_request& request) {
  require_engine();
  auto& record = find(request.sandbox_id);
  if (!fs::is_directory(request.host_path)) {
    throw sdk::invalid_argument("copy_out: host_path '" + request.host_path + "' is not an existing directory");
  }
  const fs::path tar = state_dir() / ("copy-out-" + std::to_string(next_id_++) + ".tar");
  sb::copy_response out;
  try {
    out.bytes = static_cast<std::int64_t>(engine_.get_archive(record.container_id, request.sandbox_path, tar));
    tarball::extract_tar(tar, request.host_path, "host directory");  // through safe_fs: no link followed
  } catch (const std::runtime_error& e) {
    fs::remove(tar);
    if (dynamic_cast<const sdk::error*>(&e) != nullptr) throw;
    throw sdk::failed(std::string("copy_out: ") + e.what());
  }
  fs::remove(tar);
  return out;
}

void docker_sandbox::remove_sandbox(const std::string& id, sandbox_record& record, std::vector<std::string>& removed) {
  if (!record.container_id.empty()) {
    engine_.remove_container(record.container_id);
    removed.push_back("container " + record.container_id);
    record.container_id.clear();
  }
  for (auto it = record.checkpoints.begin(); it != record.checkpoints.end();) {
    engine_.remove_image(it->second.image_id);
    removed.push_back("image " + it->second.image_id);
    std::error_code ec;
    fs::remove(it->second.snapshot, ec);
    it = record.checkpoints.erase(it);
  }
  if (record.own_workspace) {
    std::error_code ec;
    try {  // the agent's links are removed, never followed
      safe_fs::remove_tree(safe_fs::root::open(record.workspace, "workspace"), "");
    } catch (const safe_fs::error& e) {
      R2R_LOG(host_, warn, "cannot empty " << record.workspace.string() << ": " << e.what());
    }
    fs::remove(record.workspace, ec);
    removed.push_back("directory " + record.workspace.string());
    record.own_workspace = false;
  }
  (void)id;
}

sb::removed_response docker_sandbox::destroy(const sb::destroy_request& request) {
  require_engine();
  auto& record = find(request.sandbox_id);
  sb::removed_response out;
  remove_sandbox(request.sandbox_id, record, out.removed);
  sandboxes_.erase(request.sandbox_id);
  return out;
}

sb::removed_response docker_sandbox::cleanup(const sb::cleanup_request& request) {
  require_engine();
  sb::removed_response out;
  for (auto& [id, record] : sandboxes_) remove_sandbox(id, record, out.removed);
  sandboxes_.clear();
  const std::string key = request.all ? cfg_.label : cfg_.label + ".owner";
  const std::string value = request.all ? std::string() : owner_;
  for (const auto& c : engine_.containers_with_label(key, value)) {
    engine_.remove_container(c);
    out.removed.push_back("container " + c);
  }
  // Removing a tagged image can untag it before deleting; repeat until nothing labelled is left.
  for (int pass = 0; pass < 3; ++pass) {
    const auto images = engine_.images_with_label(key, value);
    if (images.empty()) break;
    for (const auto& i : images) {
      engine_.remove_image(i);
      out.removed.push_back("image " + i);
    }
  }
  built_images_.clear();
  return out;
}

nlohmann::json docker_sandbox::image_inspect(const nlohmann::json& request) {
  require_engine();
  const std::string name = request.value("image", std::string());
  if (name.empty()) throw sdk::invalid_argument("image_inspect: \"image\" is required");
  const auto image = engine_.inspect_image(name);
  if (!image) return {{"exists", false}, {"image", name}};
  const auto& config = image->value("Config", nlohmann::json::object());
  return {{"exists", true},
          {"image", name},
          {"id", image->value("Id", std::string())},
          {"digest", pinned_digest(*image, name)},
          {"size", image->value("Size", 0LL)},
          {"architecture", image->value("Architecture", std::string())},
          {"labels", config.is_object() && config.contains("Labels") && config["Labels"].is_object()
                         ? config["Labels"]
                         : nlohmann::json::object()}};
}

nlohmann::json docker_sandbox::ensure_image(const std::string& image, const std::function<bool()>& should_stop,
                                            bool& pulled, std::vector<std::string>* events) {
  pulled = false;
  if (auto found = engine_.inspect_image(image)) return *found;
  if (cfg_.no_pull) {
    throw sdk::failed("image '" + image + "' is not on the engine at " + cfg_.socket +
                      "; build it (image_build) or import it first: images are never pulled");
  }
  const std::string registry = registry_of(image);
  const auto client_config = load_docker_config();
  const std::string auth = registry_auth_header(client_config, registry);
  if (auth.empty() && has_credential_helper(client_config, registry)) {
    R2R_LOG(host_, warn,
            "pull " << image << ": the client config names a credential helper for " << registry
                    << ", which is not run; pulling anonymously (add an \"auths\" entry, or pull it first)");
  }
  const bool terminal =
      cfg_.pull_progress == "terminal" || (cfg_.pull_progress == "auto" && ::isatty(STDERR_FILENO) == 1);
  R2R_LOG(host_, info, "pulling " << image << " from " << registry << (auth.empty() ? "" : " (with credentials)"));
  pull_progress progress;
  std::size_t drawn = 0;
  auto last_draw = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  auto draw = [&](bool force) {
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_draw < std::chrono::milliseconds(200)) return;
    last_draw = now;
    std::string frame = drawn > 0 ? "\x1b[" + std::to_string(drawn) + "F" : std::string();
    const auto lines = progress.layer_lines();
    for (const auto& line : lines) frame += "\x1b[2K" + line + "\n";
    drawn = lines.size();
    (void)!::write(STDERR_FILENO, frame.data(), frame.size());
  };
  engine_.pull_image(
      image, auth,
      [&](const nlohmann::json& message) {
        const auto lines = progress.feed(message);
        if (events != nullptr) events->insert(events->end(), lines.begin(), lines.end());
        if (terminal) {
          draw(!lines.empty());
        } else {
          for (const auto& e : lines) R2R_LOG(host_, info, "pull " << image << ": " << e);
        }
      },
      should_stop);
  if (terminal) draw(true);
  auto found = engine_.inspect_image(image);
  if (!found) throw sdk::failed("pull " + image + " reported success but the engine has no such image");
  pulled = true;
  R2R_LOG(host_, info, "pulled " << image << " as " << pinned_digest(*found, image));
  return *found;
}

nlohmann::json docker_sandbox::image_pull(const nlohmann::json& request, sdk::call_context& ctx) {
  require_engine();
  const std::string name = request.value("image", std::string());
  if (name.empty()) throw sdk::invalid_argument("image_pull: \"image\" is required (a reference such as repo:tag)");
  engine_.ping();
  bool pulled = false;
  std::vector<std::string> events;
  const auto image = ensure_image(
      name, [&ctx] { return ctx.cancelled(); }, pulled, &events);
  return {{"image", name},
          {"id", image.value("Id", std::string())},
          {"digest", pinned_digest(image, name)},
          {"pulled", pulled},
          {"progress", events}};
}

nlohmann::json docker_sandbox::image_build(const build_request& request) {
  require_engine();
  build_started_ = true;
  const auto l = labels("built", "1");
  if (!request.context_dir.empty()) return build_context(request, l);
  const std::string dockerfile = generate_dockerfile(request, l);
  std::map<std::string, std::string> context{{"Dockerfile", dockerfile}};
  for (const auto& [name, content] : request.files) context["files/" + name] = content;
  const std::string tag = request.tag.empty() ? "r2r-build-" + owner_ + ":" + std::to_string(next_id_++) : request.tag;
  const fs::path tar = state_dir() / ("build-" + std::to_string(next_id_++) + ".tar");
  std::string id;
  try {
    tarball::write_tar_of_files(context, tar);
    id = engine_.build_image(tar, tag, l);
  } catch (...) {
    std::error_code ec;
    fs::remove(tar, ec);
    throw;
  }
  fs::remove(tar);
  built_images_.push_back(id);
  return {{"image", id}, {"tag", tag}, {"dockerfile", dockerfile}};
}

nlohmann::json docker_sandbox::build_context(const build_request& request,
                                             const std::map<std::string, std::string>& l) {
  const fs::path dir = request.context_dir;
  if (!dir.is_absolute() || !fs::is_regular_file(dir / "Dockerfile"))
    throw sdk::invalid_argument(
        "build request: \"context_dir\" must be an absolute directory with a Dockerfile at its "
        "root; found '" +
        request.context_dir + "'");
  docker_engine::build_options options;
  options.nocache = request.nocache;
  if (request.network && cfg_.network != "none") {
    options.network = cfg_.network_mode;
    options.build_args = plugins::sandbox::install_env(cfg_.package_index);
  }
  for (const auto& [k, v] : request.build_args) options.build_args[k] = v;
  const std::string tag = request.tag.empty() ? "r2r-build-" + owner_ + ":" + std::to_string(next_id_++) : request.tag;
  const fs::path tar = state_dir() / ("context-" + std::to_string(next_id_++) + ".tar");
  std::string id;
  try {
    tarball::write_tar(dir, tar, "");
    id = engine_.build_image(tar, tag, l, options);
  } catch (...) {
    std::error_code ec;
    fs::remove(tar, ec);
    throw;
  }
  fs::remove(tar);
  built_images_.push_back(id);
  std::ifstream in(dir / "Dockerfile", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return {{"image", id}, {"tag", tag}, {"dockerfile", text.str()}, {"network", options.network}};
}

}  // namespace r2r::plugins::sandbox::docker
