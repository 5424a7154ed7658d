// SPDX-License-Identifier: MIT
// Turns a plain C++ class into a plugin behind the C ABI.
//
// A plugin class T provides:
//   struct config { ... };                      optional; needs from_json (defaults apply)
//   T(const config&, const r2r::sdk::host&);    or T(const config&), T(const r2r::sdk::host&), T()
//   static r2r::sdk::method_table<T> methods(); { r2r::sdk::method("name", &T::handler), ... }
// and registers with one macro in a registration-only plugin.cpp:
//   R2R_PLUGIN(T, R2R_KIND_GUARD, "org.guard.name", "1.0.0", "one line", schema_json, example_json)
// or, when built with r2r_add_plugin() (which generates r2r_plugin_info.hpp from the CMake call):
//   R2R_PLUGIN_MAIN(T)
//
// Every exported C function is wrapped in a catch-all barrier: exceptions become a status plus a
// last_error() message, and never cross the ABI.
#pragma once

#include <r2r/plugin_api.h>
#include <r2r/sdk/error.hpp>
#include <r2r/sdk/host.hpp>
#include <r2r/sdk/methods.hpp>

#include <nlohmann/json.hpp>

#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace r2r::sdk {
namespace detail {

struct empty_config {};
inline void from_json(const nlohmann::json& j, empty_config&) {
  if (!j.is_object()) throw invalid_argument("config must be a JSON object, found " + std::string(j.type_name()));
}

template <class T, class = void>
struct config_of {
  using type = empty_config;
};
template <class T>
struct config_of<T, std::void_t<typename T::config>> {
  using type = typename T::config;
};

template <class T, class = void>
struct has_methods : std::false_type {};
template <class T>
struct has_methods<T, std::void_t<decltype(T::methods())>>
    : std::is_convertible<decltype(T::methods()), method_table<T>> {};

/// Per-instance state owned by the SDK. r2r_instance* is a pointer to this box.
template <class T>
struct instance_box {
  explicit instance_box(const r2r_host_api* api) : host_api(api) {}
  const r2r_host_api* host_api;  // OWNERSHIP: host
  T* object = nullptr;           // OWNERSHIP: box; raw so a throwing destructor can be caught
  std::string last_error;
  std::string response;  // holds the last call's response text until the next call
};

inline void store_error(std::string& slot, const char* prefix, const char* message) noexcept {
  try {
    slot.assign(prefix);
    slot.append(message);
  } catch (...) {
    slot.clear();  // out of memory while reporting; an empty message is all that is left
  }
}

/// The catch-all barrier. Runs fn; maps every exception to a status and stores its message.
template <class Fn>
r2r_status barrier(std::string& error_slot, Fn&& fn) noexcept {
  try {
    std::forward<Fn>(fn)();
    return R2R_OK;
  } catch (const error& e) {
    store_error(error_slot, "", e.what());
    return e.status();
  } catch (const nlohmann::json::parse_error& e) {
    store_error(error_slot, "malformed JSON: ", e.what());
    return R2R_ERR_INVALID_ARGUMENT;
  } catch (const nlohmann::json::exception& e) {
    store_error(error_slot, "JSON has the wrong shape: ", e.what());
    return R2R_ERR_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    store_error(error_slot, "", "out of memory");
    return R2R_ERR_INTERNAL;
  } catch (const std::exception& e) {
    store_error(error_slot, "unexpected exception: ", e.what());
    return R2R_ERR_INTERNAL;
  } catch (...) {
    store_error(error_slot, "", "unexpected exception of a non-standard type");
    return R2R_ERR_INTERNAL;
  }
}

template <class T>
T* construct(const typename config_of<T>::type& cfg, const host& h) {
  using C = typename config_of<T>::type;
  if constexpr (std::is_constructible_v<T, const C&, const host&>) {
    return new T(cfg, h);
  } else if constexpr (std::is_constructible_v<T, const C&>) {
    return new T(cfg);
  } else if constexpr (std::is_constructible_v<T, const host&>) {
    return new T(h);
  } else {
    static_assert(std::is_default_constructible_v<T>,
                  "R2R_PLUGIN: the plugin class needs one of these constructors: "
                  "T(const T::config&, const r2r::sdk::host&), T(const T::config&), "
                  "T(const r2r::sdk::host&), T()");
    return new T();
  }
}

/// The C functions of one plugin class. All are noexcept and go through barrier().
template <class T>
struct glue {
  static_assert(has_methods<T>::value,
                "R2R_PLUGIN: the plugin class needs `static r2r::sdk::method_table<T> methods();`");
  using box = instance_box<T>;

  static const method_table<T>& table() {
    static const method_table<T> methods = T::methods();  // built on first call, never at load
    return methods;
  }

  static r2r_status create(const r2r_host_api* api, r2r_str config_json, r2r_instance** out) noexcept {
    if (out == nullptr) return R2R_ERR_INVALID_ARGUMENT;
    *out = nullptr;
    box* b = nullptr;
    try {
      b = new box(api);
    } catch (...) {
      return R2R_ERR_INTERNAL;
    }
    *out = reinterpret_cast<r2r_instance*>(b);
    return barrier(b->last_error, [&] {
      const std::string_view text = to_view(config_json);
      const nlohmann::json j = text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
      const auto cfg = j.get<typename config_of<T>::type>();
      b->object = construct<T>(cfg, host(api));
    });
  }

  static void destroy(r2r_instance* instance) noexcept {
    auto* b = reinterpret_cast<box*>(instance);
    if (b == nullptr) return;
    // A destructor that throws (declared noexcept(false)) must not take the host down; the
    // delete-expression still frees the memory when the destructor throws.
    std::string ignored;
    barrier(ignored, [&] {
      T* object = b->object;
      b->object = nullptr;
      delete object;
    });
    delete b;
  }

  static r2r_status call(r2r_instance* instance, r2r_str method, r2r_str request_json, void* call_ctx,
                         r2r_str* response) noexcept {
    auto* b = reinterpret_cast<box*>(instance);
    if (b == nullptr || response == nullptr) return R2R_ERR_INVALID_ARGUMENT;
    *response = r2r_str{"", 0};
    return barrier(b->last_error, [&] {
      b->last_error.clear();
      if (!b->object) throw failed("instance was not created successfully");
      const std::string_view name = to_view(method);
      for (const auto& entry : table()) {
        if (entry.name != name) continue;
        const std::string_view text = to_view(request_json);
        const nlohmann::json request = text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
        call_context ctx(b->host_api, call_ctx);
        b->response = entry.invoke(*b->object, request, ctx).dump();
        *response = to_str(b->response);
        return;
      }
      std::string known;
      for (const auto& entry : table()) known += (known.empty() ? "" : ", ") + entry.name;
      throw error(R2R_ERR_UNKNOWN_METHOD,
                  "unknown method '" + std::string(name) + "'; this plugin implements: " + known);
    });
  }

  static const char* last_error(r2r_instance* instance) noexcept {
    auto* b = reinterpret_cast<box*>(instance);
    return b == nullptr ? "" : b->last_error.c_str();
  }
};

}  // namespace detail

/// A descriptor for plugin class T. Constant-initialised: loading the library runs no code.
template <class T>
constexpr r2r_plugin_desc make_descriptor(r2r_kind kind, const char* id, const char* version, const char* description,
                                          const char* config_schema, const char* example_config) noexcept {
  return r2r_plugin_desc{sizeof(r2r_plugin_desc),
                         R2R_ABI_MAJOR,
                         R2R_ABI_MINOR,
                         kind,
                         id,
                         version,
                         description,
                         config_schema,
                         example_config,
                         &detail::glue<T>::create,
                         &detail::glue<T>::destroy,
                         &detail::glue<T>::call,
                         &detail::glue<T>::last_error};
}

}  // namespace r2r::sdk

/// Defines a descriptor variable for class T (use with R2R_PLUGIN_ENTRY for several per library).
#define R2R_PLUGIN_DESCRIPTOR(var, T, kind, id, version, description, schema, example) \
  static constexpr r2r_plugin_desc var =                                               \
      ::r2r::sdk::make_descriptor<T>(kind, id, version, description, schema, example);

/// Defines the one exported entry point, returning the listed descriptors (pointers).
#define R2R_PLUGIN_ENTRY(...)                                                                    \
  extern "C" R2R_EXPORT const r2r_plugin_desc* const* r2r_plugin_entry_v1(                       \
      uint32_t r2r_host_major, uint32_t r2r_host_minor, size_t* r2r_count) {                     \
    (void)r2r_host_major;                                                                        \
    (void)r2r_host_minor;                                                                        \
    static constexpr const r2r_plugin_desc* r2r_descriptors[] = {__VA_ARGS__};                   \
    if (r2r_count != nullptr) *r2r_count = sizeof(r2r_descriptors) / sizeof(r2r_descriptors[0]); \
    return r2r_descriptors;                                                                      \
  }

/// One plugin class per library, with every field given explicitly.
#define R2R_PLUGIN(T, kind, id, version, description, schema, example)                              \
  R2R_PLUGIN_DESCRIPTOR(r2r_plugin_descriptor_, T, kind, id, version, description, schema, example) \
  R2R_PLUGIN_ENTRY(&r2r_plugin_descriptor_)

/// One plugin class per library, with kind, id, version, description, schema and example taken
/// from the r2r_plugin_info.hpp that r2r_add_plugin() generates from its CMake arguments.
#define R2R_PLUGIN_MAIN(T)                                                                  \
  R2R_PLUGIN(T, ::r2r_plugin_info::kind, ::r2r_plugin_info::id, ::r2r_plugin_info::version, \
             ::r2r_plugin_info::description, ::r2r_plugin_info::config_schema, ::r2r_plugin_info::example_config)
