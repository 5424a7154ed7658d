// SPDX-License-Identifier: MIT
// C++ view of r2r_host_api: logging, cancellation and calls to other pipeline services.
// OWNERSHIP: a host object borrows the r2r_host_api the plugin received in create(); it is valid
// until the instance is destroyed, so plugin classes may keep a copy of it.
#pragma once

#include <r2r/plugin_api.h>
#include <r2r/sdk/error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>

namespace r2r::sdk {

enum class log_level : r2r_log_level {
  trace = R2R_LOG_TRACE,
  debug = R2R_LOG_DEBUG,
  info = R2R_LOG_INFO,
  warn = R2R_LOG_WARN,
  error = R2R_LOG_ERROR,
  critical = R2R_LOG_CRITICAL,
};

inline r2r_str to_str(std::string_view s) noexcept {
  return r2r_str{s.data(), s.size()};
}
inline std::string_view to_view(r2r_str s) noexcept {
  return s.data == nullptr ? std::string_view{} : std::string_view{s.data, s.size};
}

/// Logger and service access for one instance. Cheap to copy. THREADING: logging is thread-safe.
class host {
 public:
  explicit host(const r2r_host_api* api) noexcept : api_(api) {}

  bool enabled(log_level level) const noexcept {
    return api_ != nullptr && api_->log_enabled != nullptr &&
           api_->log_enabled(api_->host_ctx, static_cast<r2r_log_level>(level)) != 0;
  }
  void write(log_level level, std::string_view message) const noexcept {
    if (api_ != nullptr && api_->log != nullptr) {
      api_->log(api_->host_ctx, static_cast<r2r_log_level>(level), to_str(message));
    }
  }
  void info(std::string_view m) const noexcept { write(log_level::info, m); }
  void warn(std::string_view m) const noexcept { write(log_level::warn, m); }
  void debug(std::string_view m) const noexcept { write(log_level::debug, m); }

  const r2r_host_api* api() const noexcept { return api_; }

 private:
  const r2r_host_api* api_;
};

/// The context of one call(): cancellation and routed service calls. Valid only during the call.
class call_context {
 public:
  call_context(const r2r_host_api* api, void* call_ctx) noexcept : api_(api), call_ctx_(call_ctx) {}

  bool cancelled() const noexcept {
    return api_ != nullptr && api_->is_cancelled != nullptr && api_->is_cancelled(api_->host_ctx, call_ctx_) != 0;
  }
  /// Throws sdk::cancelled when the host asked this call to stop.
  void throw_if_cancelled() const {
    if (cancelled()) throw sdk::cancelled();
  }

  /// Calls `method` on the pipeline instance named `service`; returns its JSON response.
  /// Throws sdk::error with the callee's status and message on failure.
  nlohmann::json call_service(std::string_view service, std::string_view method, const nlohmann::json& request) const {
    if (api_ == nullptr || api_->struct_size < offsetof(r2r_host_api, call_service) + sizeof(void*) ||
        api_->call_service == nullptr) {
      throw unavailable("the host does not offer call_service; upgrade repo2rocm");
    }
    struct reply {
      r2r_status status = R2R_ERR_INTERNAL;
      std::string payload;
    } out;
    const std::string text = request.dump();
    api_->call_service(
        api_->host_ctx, call_ctx_, to_str(service), to_str(method), to_str(text),
        [](void* user, r2r_status status, r2r_str payload) {
          auto* r = static_cast<reply*>(user);
          r->status = status;
          r->payload.assign(to_view(payload));
        },
        &out);
    if (out.status != R2R_OK) {
      throw error(out.status,
                  "service '" + std::string(service) + "' method '" + std::string(method) + "' failed: " + out.payload);
    }
    return nlohmann::json::parse(out.payload);
  }

 private:
  const r2r_host_api* api_;
  void* call_ctx_;
};

}  // namespace r2r::sdk

/// Logs a stream expression only when the level is enabled, so formatting costs nothing otherwise:
///   R2R_LOG(host_, info, "denied " << n << " actions");
#define R2R_LOG(host_obj, level, stream_expr)                                \
  do {                                                                       \
    if ((host_obj).enabled(::r2r::sdk::log_level::level)) {                  \
      std::ostringstream r2r_log_stream_;                                    \
      r2r_log_stream_ << stream_expr;                                        \
      (host_obj).write(::r2r::sdk::log_level::level, r2r_log_stream_.str()); \
    }                                                                        \
  } while (0)
