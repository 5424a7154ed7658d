// SPDX-License-Identifier: MIT
// A live plugin instance and the host side of r2r_host_api it was given.
// OWNERSHIP/LIFETIME: an instance holds a shared_ptr to its library, so the code stays mapped until
// the instance is gone; destruction calls the plugin's destroy() first, then releases the host API
// (which the plugin may use until destroy returns), then the library.
// THREADING: call() may be used from any thread; calls on one instance are serialised, and a call
// that re-enters the same instance (A -> service -> A) fails instead of deadlocking.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/core/plugin_loader.hpp>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace r2r::core {

class plugin_instance;

/// Cooperative cancellation shared by every instance of a run (Ctrl-C, caps, deadlines).
class cancel_token {
 public:
  void cancel() noexcept { cancelled_ = true; }
  bool cancelled() const noexcept { return cancelled_; }

 private:
  std::atomic<bool> cancelled_{false};
};

/// Resolves service names (pipeline "instances") for host call_service. OWNERSHIP: the caller;
/// it must outlive every instance it is given to.
class service_directory {
 public:
  virtual ~service_directory() = default;
  virtual plugin_instance* resolve(std::string_view name) = 0;
};

struct instance_options {
  std::string name;  // for logs and messages: the pipeline instance name or the plugin id
  std::optional<spdlog::level::level_enum> log_level;
  service_directory* services = nullptr;
  std::shared_ptr<cancel_token> cancel;
  bool validate_messages = true;  // check requests/responses against plugin_api/schemas/<kind>/
};

class plugin_instance {
 public:
  /// Validates `config` against the plugin's schema, then calls create().
  static result<std::unique_ptr<plugin_instance>> create(const loaded_plugin& plugin, const nlohmann::json& config,
                                                         instance_options options = {});
  ~plugin_instance();
  plugin_instance(const plugin_instance&) = delete;
  plugin_instance& operator=(const plugin_instance&) = delete;

  /// Calls `method`; the plugin's error (status and last_error text) comes back as phase::run.
  result<nlohmann::json> call(std::string_view method, const nlohmann::json& request);

  const plugin_info& info() const noexcept { return info_; }
  const std::string& name() const noexcept { return options_.name; }

  struct host_binding;  // the r2r_host_api and its context (plugin_instance.cpp)

 private:
  plugin_instance() = default;
  result<nlohmann::json> call_at_depth(std::string_view method, const nlohmann::json& request, int depth);

  std::shared_ptr<dynamic_library> library_;  // released last
  plugin_info info_;
  const r2r_plugin_desc* descriptor_ = nullptr;
  instance_options options_;
  std::unique_ptr<host_binding> host_;
  r2r_instance* handle_ = nullptr;
  std::mutex call_mutex_;
};

}  // namespace r2r::core
