// SPDX-License-Identifier: MIT
// A host for plugin unit tests: records log lines, can cancel, and serves named services from
// std::function handlers. Use it to test a plugin class directly, without loading a library:
//   r2r::sdk::testing::fake_host fh;
//   my_guard g(cfg, fh.sdk_host());
//   auto ctx = fh.context();  auto d = g.check_action(req, ctx);
// OWNERSHIP: the fake_host must outlive every object given its api(). THREADING: single-threaded.
#pragma once

#include <r2r/plugin_api.h>
#include <r2r/sdk/host.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace r2r::sdk::testing {

class fake_host {
 public:
  struct log_line {
    log_level level;
    std::string message;
  };
  using service_fn = std::function<nlohmann::json(const std::string& method, const nlohmann::json& request)>;

  fake_host() {
    api_.struct_size = sizeof(r2r_host_api);
    api_.abi_major = R2R_ABI_MAJOR;
    api_.abi_minor = R2R_ABI_MINOR;
    api_.host_ctx = this;
    api_.log = [](void* self, r2r_log_level level, r2r_str message) {
      static_cast<fake_host*>(self)->lines_.push_back({static_cast<log_level>(level), std::string(to_view(message))});
    };
    api_.log_enabled = [](void* self, r2r_log_level level) {
      return static_cast<int>(level >= static_cast<r2r_log_level>(static_cast<fake_host*>(self)->min_level_));
    };
    api_.is_cancelled = [](void* self, void*) { return static_cast<int>(static_cast<fake_host*>(self)->cancelled_); };
    api_.call_service = [](void* self, void*, r2r_str service, r2r_str method, r2r_str request,
                           r2r_service_callback done, void* user) -> r2r_status {
      auto* h = static_cast<fake_host*>(self);
      auto it = h->services_.find(std::string(to_view(service)));
      if (it == h->services_.end()) {
        const std::string msg = "no service named '" + std::string(to_view(service)) + "'";
        done(user, R2R_ERR_UNAVAILABLE, to_str(msg));
        return R2R_ERR_UNAVAILABLE;
      }
      try {
        const std::string out =
            it->second(std::string(to_view(method)), nlohmann::json::parse(to_view(request))).dump();
        done(user, R2R_OK, to_str(out));
        return R2R_OK;
      } catch (const std::exception& e) {
        const std::string msg = e.what();
        done(user, R2R_ERR_FAILED, to_str(msg));
        return R2R_ERR_FAILED;
      }
    };
  }
  fake_host(const fake_host&) = delete;
  fake_host& operator=(const fake_host&) = delete;

  const r2r_host_api* api() const noexcept { return &api_; }
  host sdk_host() const noexcept { return host(&api_); }
  call_context context() const noexcept { return call_context(&api_, nullptr); }

  void set_level(log_level level) { min_level_ = level; }
  void cancel(bool on = true) { cancelled_ = on; }
  void serve(const std::string& name, service_fn fn) { services_[name] = std::move(fn); }
  const std::vector<log_line>& lines() const noexcept { return lines_; }

 private:
  r2r_host_api api_{};
  std::vector<log_line> lines_;
  std::map<std::string, service_fn> services_;
  log_level min_level_ = log_level::trace;
  bool cancelled_ = false;
};

}  // namespace r2r::sdk::testing
