// SPDX-License-Identifier: MIT
#include "local_sandbox.hpp"

#include <r2r/support/workspace_snapshot.hpp>
#include "bwrap_args.hpp"
#include "child_process.hpp"
#include "output_encoding.hpp"
#include "sandbox_setup.hpp"
#include "workspace_reclaim.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/support/safe_fs.hpp>

#include <unistd.h>

#include <random>
#include <regex>
#include <sstream>

namespace r2r::plugins::sandbox::local {
namespace fs = std::filesystem;
namespace sb = sdk::sandbox;

namespace {

rlim_t limit(std::int64_t value) {
  return value > 0 ? static_cast<rlim_t>(value) : RLIM_INFINITY;
}

std::string random_token() {
  std::random_device rd;
  std::ostringstream out;
  out << std::hex << (rd() & 0xFFFFFF) << (rd() & 0xFFFFFF);
  return out.str();
}

}  // namespace

void from_json(const nlohmann::json& j, local_sandbox::config& c) {
  const local_sandbox::config d;
  c.bwrap = j.value("bwrap", d.bwrap);
  c.ro_binds = j.value("ro_binds", d.ro_binds);
  c.sandbox_workspace = j.value("sandbox_workspace", d.sandbox_workspace);
  c.state_dir = j.value("state_dir", d.state_dir);
  c.default_timeout_s = j.value("default_timeout_s", d.default_timeout_s);
  c.max_output_bytes = j.value("max_output_bytes", d.max_output_bytes);
  c.memory_bytes = j.value("memory_bytes", d.memory_bytes);
  c.processes = j.value("processes", d.processes);
  c.cpu_seconds = j.value("cpu_seconds", d.cpu_seconds);
  c.file_size_bytes = j.value("file_size_bytes", d.file_size_bytes);
  c.open_files = j.value("open_files", d.open_files);
  c.network = plugins::sandbox::configured_policy(j);
  c.package_index = j.value("package_index", d.package_index);
}

local_sandbox::local_sandbox(const config& cfg, const sdk::host& host) : cfg_(cfg), host_(host) {}

local_sandbox::~local_sandbox() {
  std::vector<std::string> removed;
  for (auto& [id, record] : sandboxes_) remove_sandbox(record, removed);
  if (!state_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(state_dir_, ec);
  }
}

void local_sandbox::require_bwrap() const {
  if (access(cfg_.bwrap.c_str(), X_OK) != 0) {
    throw sdk::unavailable("bubblewrap is not at " + cfg_.bwrap +
                           " (install the `bubblewrap` package, or set \"bwrap\" in the plugin config)");
  }
}

const fs::path& local_sandbox::state_dir() {
  if (state_dir_.empty()) {
    const fs::path base = cfg_.state_dir.empty() ? fs::temp_directory_path() : fs::path(cfg_.state_dir);
    fs::path dir = base / ("r2r-local-" + random_token());
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw sdk::failed("cannot create the state directory " + dir.string() + ": " + ec.message());
    fs::permissions(dir, fs::perms::owner_all, ec);
    state_dir_ = std::move(dir);
  }
  return state_dir_;
}

local_sandbox::sandbox_record& local_sandbox::find(const std::string& id) {
  auto it = sandboxes_.find(id);
  if (it == sandboxes_.end()) {
    throw sdk::invalid_argument("no sandbox '" + id + "' in this instance; call create first");
  }
  return it->second;
}

sb::info_response local_sandbox::info(const sb::info_request&) {
  require_bwrap();
  const auto r = run_process({cfg_.bwrap, "--version"}, {"PATH=/usr/bin:/bin"}, {}, std::chrono::seconds(10), 4096, {});
  if (r.exit_code != 0) throw sdk::unavailable(cfg_.bwrap + " --version failed: " + r.err.render());
  sb::info_response out;
  out.engine = "bwrap";
  out.version = r.out.render();
  while (!out.version.empty() && out.version.back() == '\n') out.version.pop_back();
  out.endpoint = cfg_.bwrap;
  out.features = {"checkpoint", "rollback", "copy", "gpu-passthrough", "network-policy", "rlimits", "network-none"};
  out.network = cfg_.network;
  out.network_target = "the host's network namespace (bwrap --share-net)";
  return out;
}

sb::create_response local_sandbox::create(const sb::create_request& request) {
  require_bwrap();
  const std::string id = "sbx" + std::to_string(next_id_++);
  sandbox_record record;
  record.plan = request;
  record.network = plugins::sandbox::effective_policy(request.network, cfg_.network);
  // Devices and mounts first: a bad request must not leave a freshly created workspace behind.
  if (request.gpu) plugins::sandbox::require_gpu_devices(*request.gpu);
  record.plan.mounts = plugins::sandbox::check_mounts(request.mounts, cfg_.sandbox_workspace);
  const auto workspace = plugins::sandbox::prepare_workspace(request.workspace, state_dir(), id);
  record.workspace = workspace.path;
  record.own_workspace = workspace.owned;
  // One live sandbox per workspace: an exec of an earlier sandbox on it (an executor SIGKILLed
  // mid-command, resumed now) must not write into it after this returns.
  if (!workspace.owned) {
    const auto killed = reclaim_workspace(record.workspace, cfg_.sandbox_workspace, std::chrono::seconds(10));
    if (!killed.empty()) {
      R2R_LOG(host_, warn,
              "killed " << killed.size() << " process(es) of an earlier sandbox still binding "
                        << record.workspace.string());
    }
  }
  record.opt = state_dir() / (id + "-opt");
  std::error_code ec;
  fs::create_directories(record.opt, ec);
  if (ec) throw sdk::failed("cannot create the sandbox's /opt directory " + record.opt.string() + ": " + ec.message());
  if (!request.image.empty()) R2R_LOG(host_, debug, "local sandbox ignores image " << request.image);
  sb::create_response out;
  out.sandbox_id = id;
  out.engine = "bwrap";
  out.workspace = record.workspace.string();
  out.sandbox_workspace = cfg_.sandbox_workspace;
  out.env = request.env;
  out.network = record.network;
  if (request.gpu) {
    const auto visible = request.gpu->visible_devices.empty() ? std::string("0") : request.gpu->visible_devices;
    out.env["HIP_VISIBLE_DEVICES"] = visible;
    out.env["ROCR_VISIBLE_DEVICES"] = visible;
  }
  sandboxes_.emplace(id, std::move(record));
  return out;
}

sb::exec_response local_sandbox::exec(const sb::exec_request& request, sdk::call_context& ctx) {
  require_bwrap();
  if (request.command.empty()) throw sdk::invalid_argument("exec: \"command\" is empty");
  auto& record = find(request.sandbox_id);
  bwrap_inputs in;
  in.bwrap = cfg_.bwrap;
  in.ro_binds = cfg_.ro_binds;
  in.host_workspace = record.workspace.string();
  in.host_opt = record.opt.string();
  in.sandbox_workspace = cfg_.sandbox_workspace;
  in.workdir = request.workdir;
  in.env = {
      {"PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}, {"HOME", cfg_.sandbox_workspace}, {"TMPDIR", "/tmp"}};
  for (const auto& [k, v] : record.plan.env) in.env[k] = v;
  if (record.plan.gpu) {
    const auto visible = record.plan.gpu->visible_devices.empty() ? std::string("0") : record.plan.gpu->visible_devices;
    in.env["HIP_VISIBLE_DEVICES"] = visible;
    in.env["ROCR_VISIBLE_DEVICES"] = visible;
  }
  if (request.install) {
    for (const auto& [k, v] : plugins::sandbox::install_env(cfg_.package_index)) in.env[k] = v;
  }
  for (const auto& [k, v] : request.env) in.env[k] = v;
  // Each exec is its own bwrap with its own namespaces (--unshare-pid: nothing outlives it), so
  // sharing the network with this one exec shares it with nothing else.
  in.share_net = plugins::sandbox::exec_gets_network(record.network, request.install);

  process_limits limits;
  const auto& p = record.plan.limits;
  limits.address_space_bytes = limit(p.memory_bytes > 0 ? p.memory_bytes : cfg_.memory_bytes);
  limits.processes = limit(p.pids > 0 ? p.pids : cfg_.processes);
  limits.cpu_seconds = limit(cfg_.cpu_seconds);
  limits.file_size_bytes = limit(cfg_.file_size_bytes);
  limits.open_files = limit(cfg_.open_files);
  const double timeout_s = request.timeout_s > 0 ? request.timeout_s : cfg_.default_timeout_s;
  const auto cap =
      static_cast<std::size_t>(request.max_output_bytes > 0 ? request.max_output_bytes : cfg_.max_output_bytes);
  auto r = run_process(bwrap_args(record.plan, in, request.command), {"PATH=/usr/bin:/bin"}, limits,
                       std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000)), cap,
                       [&ctx] { return ctx.cancelled(); });
  if (r.cancelled) throw sdk::cancelled("exec cancelled by the host; the command was killed");
  sb::exec_response out;
  out.exit_code = r.timed_out ? 137 : r.exit_code;
  out.timed_out = r.timed_out;
  auto o = plugins::sandbox::encode_output(r.out.render());
  auto e = plugins::sandbox::encode_output(r.err.render());
  out.stdout_text = std::move(o.text);
  out.stdout_encoding = o.encoding;
  out.stderr_text = std::move(e.text);
  out.stderr_encoding = e.encoding;
  out.stdout_bytes = static_cast<std::int64_t>(r.out.total_bytes());
  out.stderr_bytes = static_cast<std::int64_t>(r.err.total_bytes());
  out.truncated = r.out.truncated() || r.err.truncated();
  out.duration_ms = r.duration.count();
  out.network = in.share_net;
  return out;
}

sb::checkpoint_response local_sandbox::checkpoint(const sb::checkpoint_request& request) {
  require_bwrap();
  static const std::regex name_re("[a-z0-9][a-z0-9_.-]{0,63}");
  if (!std::regex_match(request.name, name_re)) {
    throw sdk::invalid_argument("checkpoint name must match [a-z0-9][a-z0-9_.-]{0,63}; found \"" + request.name + "\"");
  }
  auto& record = find(request.sandbox_id);
  if (record.checkpoints.count(request.name) != 0) {
    throw sdk::invalid_argument("sandbox " + request.sandbox_id + " already has a checkpoint \"" + request.name + "\"");
  }
  const fs::path tar = state_dir() / (request.sandbox_id + "-" + request.name + ".tar");
  try {
    tarball::take_snapshot(record.workspace, tar);
  } catch (const std::runtime_error& e) {
    throw sdk::failed(std::string("checkpoint: ") + e.what());
  }
  record.checkpoints.emplace(request.name, tar);
  return {request.name, ""};
}

sb::rollback_response local_sandbox::rollback(const sb::rollback_request& request) {
  require_bwrap();
  auto& record = find(request.sandbox_id);
  auto it = record.checkpoints.find(request.checkpoint);
  if (it == record.checkpoints.end()) {
    throw sdk::invalid_argument("sandbox " + request.sandbox_id + " has no checkpoint \"" + request.checkpoint + "\"");
  }
  try {
    tarball::restore_snapshot(it->second, record.workspace);
  } catch (const std::runtime_error& e) {
    throw sdk::failed(std::string("rollback: ") + e.what());
  }
  return {request.sandbox_id, request.checkpoint};
}

std::string local_sandbox::workspace_rel_of(const std::string& sandbox_path) const {
  const fs::path inside = fs::path(sandbox_path).lexically_normal();
  const fs::path rel = inside.lexically_relative(cfg_.sandbox_workspace);
  if (!inside.is_absolute() || rel.empty() || *rel.begin() == "..") {
    throw sdk::invalid_argument("sandbox_path '" + sandbox_path + "' is outside the workspace " +
                                cfg_.sandbox_workspace + " (the only persistent path of a local sandbox)");
  }
  return rel == "." ? std::string() : rel.generic_string();
}

sb::copy_response local_sandbox::copy_in(const sb::copy_request& request) {
  require_bwrap();
  auto& record = find(request.sandbox_id);
  const fs::path source(request.host_path);
  if (!fs::exists(fs::symlink_status(source))) {
    throw sdk::invalid_argument("copy_in: host_path '" + request.host_path + "' does not exist");
  }
  const std::string dest_dir = workspace_rel_of(request.sandbox_path);
  // The destination is resolved beneath the workspace fd without following links: a directory the
  // agent replaced by a link (x -> /etc) is refused, never written through.
  try {
    const auto workspace = safe_fs::root::open(record.workspace, "workspace");
    // A directory: a link anywhere on the way (the last component included) or a file is refused.
    (void)safe_fs::open_dir(workspace, dest_dir);
    const fs::path parent = source.parent_path().empty() ? fs::path(".") : source.parent_path();
    const auto host = safe_fs::root::open(parent, "host directory");
    const std::string name = source.filename().string();
    const auto report = safe_fs::copy_tree(host, name, workspace, dest_dir.empty() ? name : dest_dir + "/" + name);
    for (const auto& s : report.skipped) R2R_LOG(host_, warn, "copy_in skipped " << s.path << ": " << s.reason);
    return {static_cast<std::int64_t>(report.bytes)};
  } catch (const safe_fs::error& e) {
    throw sdk::invalid_argument("copy_in to '" + request.sandbox_path + "' refused: " + e.what() +
                                " (host-side copies never follow links in the workspace; write through a "
                                "path without links, or run the copy inside the sandbox)");
  }
}

sb::copy_response local_sandbox::copy_out(const sb::copy_request& request) {
  require_bwrap();
  auto& record = find(request.sandbox_id);
  if (!fs::is_directory(request.host_path)) {
    throw sdk::invalid_argument("copy_out: host_path '" + request.host_path + "' is not an existing directory");
  }
  const std::string rel = workspace_rel_of(request.sandbox_path);
  try {
    const auto workspace = safe_fs::root::open(record.workspace, "workspace");
    (void)safe_fs::stat(workspace, rel);  // exists, links on the way refused
    const auto host = safe_fs::root::open(request.host_path, "host directory");
    const std::string name = rel.empty() ? record.workspace.filename().string() : fs::path(rel).filename().string();
    const auto report = safe_fs::copy_tree(workspace, rel, host, name);
    for (const auto& s : report.skipped) R2R_LOG(host_, warn, "copy_out skipped " << s.path << ": " << s.reason);
    return {static_cast<std::int64_t>(report.bytes)};
  } catch (const safe_fs::error& e) {
    if (e.code() == ENOENT) {
      throw sdk::invalid_argument("copy_out: '" + request.sandbox_path + "' does not exist in the sandbox");
    }
    throw sdk::invalid_argument("copy_out of '" + request.sandbox_path + "' refused: " + e.what() +
                                " (links in the workspace are copied as links, never followed)");
  }
}

void local_sandbox::remove_sandbox(sandbox_record& record, std::vector<std::string>& removed) {
  std::error_code ec;
  for (const auto& [name, tar] : record.checkpoints) {
    fs::remove(tar, ec);
    removed.push_back("snapshot " + tar.string());
  }
  record.checkpoints.clear();
  if (!record.opt.empty()) {
    try {  // written by the sandboxed commands: links are removed, never followed
      safe_fs::remove_tree(safe_fs::root::open(record.opt, "opt"), "");
    } catch (const safe_fs::error& e) {
      R2R_LOG(host_, warn, "cannot empty " << record.opt.string() << ": " << e.what());
    }
    fs::remove(record.opt, ec);
    removed.push_back("directory " + record.opt.string());
    record.opt.clear();
  }
  if (record.own_workspace) {
    try {  // the agent's links are removed, never followed
      safe_fs::remove_tree(safe_fs::root::open(record.workspace, "workspace"), "");
    } catch (const safe_fs::error& e) {
      R2R_LOG(host_, warn, "cannot empty " << record.workspace.string() << ": " << e.what());
    }
    fs::remove(record.workspace, ec);
    removed.push_back("directory " + record.workspace.string());
    record.own_workspace = false;
  }
}

sb::removed_response local_sandbox::destroy(const sb::destroy_request& request) {
  require_bwrap();
  auto& record = find(request.sandbox_id);
  sb::removed_response out;
  remove_sandbox(record, out.removed);
  sandboxes_.erase(request.sandbox_id);
  return out;
}

sb::removed_response local_sandbox::cleanup(const sb::cleanup_request& request) {
  require_bwrap();
  sb::removed_response out;
  for (auto& [id, record] : sandboxes_) remove_sandbox(record, out.removed);
  sandboxes_.clear();
  if (request.all) {  // state directories of instances that died without cleaning up
    const fs::path base = cfg_.state_dir.empty() ? fs::temp_directory_path() : fs::path(cfg_.state_dir);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(base, ec)) {
      if (entry.is_directory() && entry.path().filename().string().rfind("r2r-local-", 0) == 0 &&
          entry.path() != state_dir_) {
        fs::remove_all(entry.path(), ec);
        out.removed.push_back("directory " + entry.path().string());
      }
    }
  }
  return out;
}

}  // namespace r2r::plugins::sandbox::local
