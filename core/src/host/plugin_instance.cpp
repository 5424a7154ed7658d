// SPDX-License-Identifier: MIT
#include <r2r/core/plugin_instance.hpp>

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/logging.hpp>
#include <r2r/core/plugin_kind.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <vector>

namespace r2r::core {
namespace {

constexpr int max_service_depth = 8;

std::string_view view(r2r_str s) {
  return s.data == nullptr ? std::string_view{} : std::string_view{s.data, s.size};
}
r2r_str str(std::string_view s) {
  return r2r_str{s.data(), s.size()};
}

spdlog::level::level_enum to_spdlog(r2r_log_level level) {
  switch (level) {
    case R2R_LOG_TRACE:
      return spdlog::level::trace;
    case R2R_LOG_DEBUG:
      return spdlog::level::debug;
    case R2R_LOG_INFO:
      return spdlog::level::info;
    case R2R_LOG_WARN:
      return spdlog::level::warn;
    case R2R_LOG_ERROR:
      return spdlog::level::err;
    default:
      return spdlog::level::critical;
  }
}

// The per-call context the host passes to the plugin as call_ctx.
struct call_frame {
  int depth = 0;
};

}  // namespace

struct plugin_instance::host_binding {
  r2r_host_api api{};
  std::shared_ptr<spdlog::logger> logger;
  service_directory* services = nullptr;
  std::shared_ptr<cancel_token> cancel;
  std::string self_name;

  static void log(void* ctx, r2r_log_level level, r2r_str message) {
    auto* self = static_cast<host_binding*>(ctx);
    try {
      self->logger->log(to_spdlog(level), "{}", view(message));
    } catch (...) {
      // logging must never fail the plugin
    }
  }
  static int log_enabled(void* ctx, r2r_log_level level) {
    return static_cast<host_binding*>(ctx)->logger->should_log(to_spdlog(level)) ? 1 : 0;
  }
  static int is_cancelled(void* ctx, void*) {
    auto* self = static_cast<host_binding*>(ctx);
    return self->cancel && self->cancel->cancelled() ? 1 : 0;
  }
  static r2r_status call_service(void* ctx, void* call_ctx, r2r_str service, r2r_str method, r2r_str request_json,
                                 r2r_service_callback on_response, void* user) {
    auto* self = static_cast<host_binding*>(ctx);
    auto deliver = [&](r2r_status status, std::string_view payload) {
      if (on_response != nullptr) on_response(user, status, str(payload));
      return status;
    };
    try {
      const int depth = call_ctx != nullptr ? static_cast<call_frame*>(call_ctx)->depth : 0;
      if (depth + 1 > max_service_depth) {
        return deliver(R2R_ERR_FAILED, "service calls nested deeper than " + std::to_string(max_service_depth) +
                                           "; a pipeline service loop?");
      }
      plugin_instance* target = self->services != nullptr ? self->services->resolve(view(service)) : nullptr;
      if (target == nullptr) {
        return deliver(R2R_ERR_UNAVAILABLE, "no pipeline instance named '" + std::string(view(service)) +
                                                "'; declare it under \"instances\" in the pipeline file");
      }
      nlohmann::json request = nlohmann::json::parse(view(request_json));
      auto response = target->call_at_depth(view(method), request, depth + 1);
      // The callee's own status (unavailable, cancelled, ...) reaches the caller; errors the host
      // raised itself (schema violations) carry none and are plain failures.
      if (!response) {
        const r2r_status status = response.error().status != R2R_OK ? response.error().status : R2R_ERR_FAILED;
        return deliver(status, response.error().to_string());
      }
      return deliver(R2R_OK, response->dump());
    } catch (const std::exception& e) {
      return deliver(R2R_ERR_INVALID_ARGUMENT, std::string("service request is not valid JSON: ") + e.what());
    }
  }
};

result<std::unique_ptr<plugin_instance>> plugin_instance::create(const loaded_plugin& plugin,
                                                                 const nlohmann::json& config,
                                                                 instance_options options) {
  const std::string file = plugin.info.library.string();
  const auto violations = plugin.config_schema->validate(config);
  if (!violations.empty()) {
    std::string message = "config rejected:";
    for (const auto& v : violations) message += "\n  " + format_violation(v);
    return fail(phase::config, message, plugin.info.id, file);
  }
  if (options.name.empty()) options.name = plugin.info.id;

  std::unique_ptr<plugin_instance> self(new plugin_instance());
  self->library_ = plugin.library;
  self->info_ = plugin.info;
  self->descriptor_ = plugin.descriptor;
  self->host_ = std::make_unique<host_binding>();
  auto& host = *self->host_;
  host.logger = logging::make_logger("plugin." + options.name, options.log_level);
  host.services = options.services;
  host.cancel = options.cancel;
  host.self_name = options.name;
  host.api.struct_size = sizeof(r2r_host_api);
  host.api.abi_major = R2R_ABI_MAJOR;
  host.api.abi_minor = R2R_ABI_MINOR;
  host.api.host_ctx = &host;
  host.api.log = &host_binding::log;
  host.api.log_enabled = &host_binding::log_enabled;
  host.api.is_cancelled = &host_binding::is_cancelled;
  host.api.call_service = &host_binding::call_service;
  self->options_ = std::move(options);

  const std::string text = config.dump();
  r2r_instance* handle = nullptr;
  const r2r_status status = plugin.descriptor->create(&host.api, str(text), &handle);
  if (status != R2R_OK) {
    std::string reason;
    if (handle != nullptr) {
      const char* message = plugin.descriptor->last_error(handle);
      reason = message != nullptr ? message : "";
      plugin.descriptor->destroy(handle);
    }
    if (reason.empty()) reason = "the plugin gave no message";
    return fail(phase::create, "create failed (" + std::string(r2r_status_name(status)) + "): " + reason,
                plugin.info.id, file);
  }
  if (handle == nullptr) {
    return fail(phase::create, "create reported success but returned no instance", plugin.info.id, file);
  }
  self->handle_ = handle;
  // One line per instance: tests count them (a run creates one instance per pipeline entry).
  spdlog::info("plugin instance '{}' of {} created", self->options_.name, plugin.info.id);
  return self;
}

plugin_instance::~plugin_instance() {
  if (handle_ != nullptr) descriptor_->destroy(handle_);  // before host_ and library_ go away
  handle_ = nullptr;
  host_.reset();
}

result<nlohmann::json> plugin_instance::call(std::string_view method, const nlohmann::json& request) {
  return call_at_depth(method, request, 0);
}

result<nlohmann::json> plugin_instance::call_at_depth(std::string_view method, const nlohmann::json& request,
                                                      int depth) {
  const std::string file = info_.library.string();
  const std::string_view kind = kind_name(info_.kind);
  if (options_.validate_messages) {
    if (const auto* schema = message_schema(kind, method, true)) {
      if (auto v = schema->validate(request); !v.empty()) {
        return fail(phase::run,
                    "request for " + std::string(kind) + "." + std::string(method) +
                        " violates its schema: " + format_violation(v.front()),
                    info_.id, file);
      }
    }
  }
  // Instances this thread is inside of: a call that comes back to one of them would deadlock.
  thread_local std::vector<const plugin_instance*> active;
  if (std::find(active.begin(), active.end(), this) != active.end()) {
    return fail(phase::run, "re-entrant call to instance '" + options_.name + "' while it is handling a call", info_.id,
                file);
  }
  std::lock_guard<std::mutex> lock(call_mutex_);
  active.push_back(this);
  struct pop_on_exit {
    std::vector<const plugin_instance*>& list;
    ~pop_on_exit() { list.pop_back(); }
  } pop{active};
  call_frame frame{depth};
  const std::string text = request.dump();
  r2r_str response{nullptr, 0};
  const r2r_status status = descriptor_->call(handle_, str(method), str(text), &frame, &response);
  std::string response_text(view(response));  // copy before anything else touches the instance
  std::string message;
  if (status != R2R_OK) {
    const char* e = descriptor_->last_error(handle_);
    message = e != nullptr && e[0] != '\0' ? e : "the plugin gave no message";
  }
  if (status != R2R_OK) {
    auto failure =
        fail(phase::run, std::string(method) + " failed (" + std::string(r2r_status_name(status)) + "): " + message,
             info_.id, file);
    failure.value().status = status;
    return failure;
  }
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(response_text);
  } catch (const nlohmann::json::parse_error& e) {
    return fail(phase::run, std::string(method) + " returned malformed JSON: " + e.what(), info_.id, file);
  }
  if (options_.validate_messages) {
    if (const auto* schema = message_schema(kind, method, false)) {
      if (auto v = schema->validate(parsed); !v.empty()) {
        return fail(
            phase::run,
            std::string(method) + " returned a response that violates its schema: " + format_violation(v.front()),
            info_.id, file);
      }
    }
  }
  return parsed;
}

}  // namespace r2r::core
