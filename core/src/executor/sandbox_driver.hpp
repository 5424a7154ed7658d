// SPDX-License-Identifier: MIT
// The executor's side of the `sandbox` stage: one live sandbox on a host workspace directory,
// re-created on another image by switch_image or on resume. Plugin failures never throw: exec
// turns them into a failed observation, the other calls return core::error.
// OWNERSHIP: borrows the sandbox instance; destroys its sandbox in the destructor.
#pragma once

#include <r2r/core/plugin_instance.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <set>
#include <string>

namespace r2r::executor {

struct raw_observation {
  int exit_code = 0;
  std::string stdout_text;
  std::string stderr_text;
  bool truncated = false;
  bool timed_out = false;
  double seconds = 0;

  bool failed() const { return exit_code != 0 || timed_out; }
};

class sandbox_driver {
 public:
  /// `on_exec(command, observation)` is called after every exec (commands.log).
  /// `create_template` holds extra fields of every `create` request (limits, network, GPU, env).
  sandbox_driver(core::plugin_instance& sandbox, std::filesystem::path workspace, double timeout_s,
                 std::function<void(const std::string&, const raw_observation&)> on_exec,
                 nlohmann::json create_template = nlohmann::json::object());
  ~sandbox_driver();
  sandbox_driver(const sandbox_driver&) = delete;
  sandbox_driver& operator=(const sandbox_driver&) = delete;

  core::result<void> create(const std::string& image);
  void destroy() noexcept;
  /// `install`: the command is a package install (is_package_install, or an install action); the
  /// sandbox gives it the network under the "install" policy, and nothing else.
  raw_observation exec(const std::string& command, bool install = false);
  /// Copies the host file `host_file` into the workspace directory `dir` (relative).
  core::result<void> copy_in(const std::filesystem::path& host_file, const std::string& dir);
  /// Sandbox checkpoint; returns the image it committed ("" for engines without images).
  core::result<std::string> checkpoint(const std::string& name);
  core::result<void> rollback(const std::string& name);
  /// Whether `name` was checkpointed in the live sandbox (rollback() can reach it).
  bool has_checkpoint(const std::string& name) const { return checkpoints_.count(name) != 0; }

  const std::string& image() const noexcept { return image_; }
  const std::string& sandbox_workspace() const noexcept { return sandbox_workspace_; }
  const std::filesystem::path& workspace() const noexcept { return workspace_; }

 private:
  core::plugin_instance& sandbox_;
  std::filesystem::path workspace_;
  double timeout_s_;
  std::function<void(const std::string&, const raw_observation&)> on_exec_;
  nlohmann::json create_template_;
  std::string id_;
  std::string image_;
  std::string sandbox_workspace_ = "/workspace";
  std::set<std::string> checkpoints_;
};

}  // namespace r2r::executor
