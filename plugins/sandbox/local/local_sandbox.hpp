// SPDX-License-Identifier: MIT
// r2r.sandbox.local: sandboxes without a container engine, through bubblewrap. A sandbox is a
// host workspace directory; each command runs in fresh namespaces (no network unless the policy
// lets that exec out: then it shares the host's network namespace) with the system bound read-only, rlimits, a timeout
// and a process-group kill. Checkpoints are tar snapshots of the workspace. No images: `image` in a plan is ignored.
// CONTAINMENT: the agent can write the workspace, so every host-side operation on it (copy_in,
// copy_out, checkpoint, rollback, removal) resolves paths beneath the workspace fd through safe_fs
// and never follows a link in it; an operation that would is refused.
// LIFETIME: the destructor removes this instance's private workspaces and snapshots.
// THREADING: the host serialises calls on an instance; no internal locking.
#pragma once

#include "network_policy.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/sandbox.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox::local {

class local_sandbox {
 public:
  struct config {
    std::string bwrap = "/usr/bin/bwrap";
    std::vector<std::string> ro_binds{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc/alternatives",
                                      "/etc/ld.so.cache", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
                                      // TLS roots and name resolution, for the commands that get the
                                      // network (a package install): pip fails without a CA bundle.
                                      "/etc/ssl", "/etc/ca-certificates", "/etc/resolv.conf", "/etc/hosts"};
    std::string sandbox_workspace = "/workspace";
    std::string state_dir;  // empty: a private directory under the system temp directory
    double default_timeout_s = 600;
    std::int64_t max_output_bytes = 1 << 20;
    std::int64_t memory_bytes = 8LL << 30;  // RLIMIT_AS default
    std::int64_t processes = 4096;          // RLIMIT_NPROC default (ignored for root)
    std::int64_t cpu_seconds = 3600;        // RLIMIT_CPU
    std::int64_t file_size_bytes = 16LL << 30;
    std::int64_t open_files = 4096;
    std::string network = "install";                // default policy: "none" | "install" | "always"
    plugins::sandbox::package_index package_index;  // passed into install execs only
  };

  local_sandbox(const config& cfg, const sdk::host& host);
  ~local_sandbox();
  local_sandbox(const local_sandbox&) = delete;
  local_sandbox& operator=(const local_sandbox&) = delete;

  sdk::sandbox::info_response info(const sdk::sandbox::info_request&);
  sdk::sandbox::create_response create(const sdk::sandbox::create_request& request);
  sdk::sandbox::exec_response exec(const sdk::sandbox::exec_request& request, sdk::call_context& ctx);
  sdk::sandbox::checkpoint_response checkpoint(const sdk::sandbox::checkpoint_request& request);
  sdk::sandbox::rollback_response rollback(const sdk::sandbox::rollback_request& request);
  sdk::sandbox::copy_response copy_in(const sdk::sandbox::copy_request& request);
  sdk::sandbox::copy_response copy_out(const sdk::sandbox::copy_request& request);
  sdk::sandbox::removed_response destroy(const sdk::sandbox::destroy_request& request);
  sdk::sandbox::removed_response cleanup(const sdk::sandbox::cleanup_request& request);

  static sdk::method_table<local_sandbox> methods() { return sdk::sandbox::methods<local_sandbox>(); }

 private:
  struct sandbox_record {
    sdk::sandbox::create_request plan;
    std::string network;  // the policy in force
    std::filesystem::path workspace;
    bool own_workspace = false;
    std::filesystem::path opt;  // bound at /opt in every command; removed with the sandbox
    std::map<std::string, std::filesystem::path> checkpoints;
  };

  void require_bwrap() const;
  sandbox_record& find(const std::string& id);
  const std::filesystem::path& state_dir();
  /// A path inside the sandbox's workspace as a path relative to it ("" for the workspace itself);
  /// throws invalid_argument for any other. Resolve it with safe_fs beneath the workspace fd.
  std::string workspace_rel_of(const std::string& sandbox_path) const;
  void remove_sandbox(sandbox_record& record, std::vector<std::string>& removed);

  config cfg_;
  sdk::host host_;
  std::filesystem::path state_dir_;  // created on first use
  std::map<std::string, sandbox_record> sandboxes_;
  unsigned next_id_ = 1;
};

void from_json(const nlohmann::json& j, local_sandbox::config& c);

}  // namespace r2r::plugins::sandbox::local
