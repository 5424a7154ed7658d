/* SPDX-License-Identifier: MIT
 *
 * repo2rocm plugin ABI, version 1.
 *
 * Pure C (C99), no includes beyond <stddef.h> and <stdint.h>. A plugin is a shared object that
 * exports exactly one symbol, r2r_plugin_entry_v1, returning descriptors of the plugins it holds.
 * Everything else crosses as plain C: strings as (pointer, length), messages as JSON text, and
 * results as r2r_status codes with a message read through last_error(). Nothing C++ crosses.
 *
 * Compatibility (full policy in plugin_api/ABI.md):
 *   - major: bumped when anything is removed, reordered or changes meaning. Host and plugin majors
 *     must be equal.
 *   - minor: bumped when something is appended (a field at the end of a struct, a new kind, a new
 *     status code). A plugin is accepted when its minor is <= the host's minor.
 *   - every struct that may grow starts with struct_size, set by whoever owns the struct.
 *
 * Ownership conventions: every pointer is documented with an OWNERSHIP line. "Borrowed" means the
 * receiver must copy what it wants to keep before the call returns.
 */
#ifndef R2R_PLUGIN_API_H
#define R2R_PLUGIN_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define R2R_ABI_MAJOR 1u
#define R2R_ABI_MINOR 0u

/* The one exported symbol's name, for loaders and pre-flight checks. */
#define R2R_PLUGIN_ENTRY_SYMBOL "r2r_plugin_entry_v1"

#if defined(_WIN32)
#define R2R_EXPORT __declspec(dllexport)
#else
#define R2R_EXPORT __attribute__((visibility("default")))
#endif

/* A string slice. Not NUL-terminated in general. OWNERSHIP: borrowed for the duration of the call
 * it is passed to (or the callback it is passed in), unless the field says otherwise. */
typedef struct r2r_str {
  const char* data;
  size_t size;
} r2r_str;

/* Result of a fallible operation. int32_t on the wire so new codes can be appended (minor bump). */
typedef int32_t r2r_status;
#define R2R_OK 0
#define R2R_ERR_INVALID_ARGUMENT 1 /* the request or config is malformed or violates its schema */
#define R2R_ERR_UNKNOWN_METHOD 2   /* the method is not implemented by this plugin */
#define R2R_ERR_FAILED 3           /* the operation ran and failed; last_error() says why */
#define R2R_ERR_CANCELLED 4        /* the host cancelled the call (see is_cancelled) */
#define R2R_ERR_UNAVAILABLE 5      /* a dependency (service, tool, device) is not available */
#define R2R_ERR_INTERNAL 6         /* a bug: an exception or invariant violation was caught */

/* Stable lower-case name of a status, for messages. */
static inline const char* r2r_status_name(r2r_status status) {
  switch (status) {
    case R2R_OK:
      return "ok";
    case R2R_ERR_INVALID_ARGUMENT:
      return "invalid_argument";
    case R2R_ERR_UNKNOWN_METHOD:
      return "unknown_method";
    case R2R_ERR_FAILED:
      return "failed";
    case R2R_ERR_CANCELLED:
      return "cancelled";
    case R2R_ERR_UNAVAILABLE:
      return "unavailable";
    case R2R_ERR_INTERNAL:
      return "internal";
    default:
      return "unknown_status";
  }
}

/* Plugin kinds. Appending a kind is a minor bump. */
typedef uint32_t r2r_kind;
#define R2R_KIND_LLM 1u       /* language-model backends */
#define R2R_KIND_RANKER 2u    /* ROCm base-image rankers */
#define R2R_KIND_CONVERTER 3u /* CUDA -> HIP source converters */
#define R2R_KIND_SANDBOX 4u   /* isolated execution environments */
#define R2R_KIND_POLICY 5u    /* agents that propose one action per turn */
#define R2R_KIND_GUARD 6u     /* allow/deny decisions on actions, evidence from observations */
#define R2R_KIND_VERIFIER 7u  /* owners of the verdict */
#define R2R_KIND_SCHEDULER 8u /* placement of runs on GPUs and clusters */

typedef int32_t r2r_log_level;
#define R2R_LOG_TRACE 0
#define R2R_LOG_DEBUG 1
#define R2R_LOG_INFO 2
#define R2R_LOG_WARN 3
#define R2R_LOG_ERROR 4
#define R2R_LOG_CRITICAL 5

/* Opaque plugin instance. OWNERSHIP: plugin; created by create(), released by destroy(). */
typedef struct r2r_instance r2r_instance;

/* Receives the response of a host service call. OWNERSHIP: payload is borrowed for the duration of
 * the callback. status is R2R_OK and payload the JSON response, or an error status and payload a
 * human-readable message. Called exactly once per call_service() that returns. */
typedef void (*r2r_service_callback)(void* user, r2r_status status, r2r_str payload);

/* What the host offers a plugin instance.
 * OWNERSHIP: host. The pointer given to create() stays valid until destroy() returns, so a plugin
 * may store it. THREADING: log and log_enabled may be called from any thread; is_cancelled and
 * call_service only from inside a call() on the instance, with the call_ctx that call received. */
typedef struct r2r_host_api {
  uint32_t struct_size; /* sizeof(r2r_host_api) as the host knows it */
  uint32_t abi_major;
  uint32_t abi_minor;
  void* host_ctx; /* OWNERSHIP: host; pass back unchanged */

  /* Writes a log line attributed to this instance. message is borrowed. */
  void (*log)(void* host_ctx, r2r_log_level level, r2r_str message);

  /* Non-zero when a line at this level would be written; check before formatting expensive text. */
  int (*log_enabled)(void* host_ctx, r2r_log_level level);

  /* Non-zero once the host has asked the current call to stop (caps, Ctrl-C, a deadline). The plugin
   * should return R2R_ERR_CANCELLED soon after. */
  int (*is_cancelled)(void* host_ctx, void* call_ctx);

  /* Calls `method` on the instance the pipeline names `service` (for example "llm" or "sandbox"),
   * with request_json. Plugins never call each other directly: this is the only route, so every
   * plugin stays swappable by configuration. The callback runs before this function returns.
   * Returns the same status as delivered to the callback. */
  r2r_status (*call_service)(void* host_ctx, void* call_ctx, r2r_str service, r2r_str method, r2r_str request_json,
                             r2r_service_callback on_response, void* user);
} r2r_host_api;

/* A plugin's description and operations. OWNERSHIP: plugin, static storage; valid while the
 * library is loaded. Every string is NUL-terminated UTF-8. */
typedef struct r2r_plugin_desc {
  uint32_t struct_size; /* sizeof(r2r_plugin_desc) as the plugin was compiled */
  uint32_t abi_major;   /* R2R_ABI_MAJOR the plugin was compiled against */
  uint32_t abi_minor;   /* R2R_ABI_MINOR the plugin was compiled against */
  r2r_kind kind;
  const char* id;             /* "<org>.<kind>.<name>", e.g. "r2r.guard.cpu-fallback" */
  const char* version;        /* semantic version of the plugin, e.g. "0.1.0" */
  const char* description;    /* one line for `repo2rocm plugins list` */
  const char* config_schema;  /* JSON Schema (draft 7) of the config object */
  const char* example_config; /* a config that validates against config_schema */

  /* Creates an instance from config_json (already validated by the host against config_schema).
   * host: OWNERSHIP host, valid until destroy() of this instance returns.
   * On R2R_OK, *out is the new instance. On failure *out may be set to an instance whose
   * last_error() explains the failure; the host reads it and then calls destroy() on it. */
  r2r_status (*create)(const r2r_host_api* host, r2r_str config_json, r2r_instance** out);

  /* Releases an instance and everything it owns; joins every thread it started. Never fails. */
  void (*destroy)(r2r_instance* instance);

  /* The one operation. method names a message of this kind (plugin_api/schemas/<kind>/), request
   * is JSON text. On R2R_OK, *response is JSON text; on failure last_error() explains.
   * response: OWNERSHIP plugin; valid until the next call() or destroy() on this instance.
   * call_ctx: OWNERSHIP host; pass it to is_cancelled/call_service during this call only.
   * THREADING: the host never makes two calls on one instance at the same time. */
  r2r_status (*call)(r2r_instance* instance, r2r_str method, r2r_str request_json, void* call_ctx, r2r_str* response);

  /* Message of the last failed create() or call() on this instance, or "" if none.
   * OWNERSHIP: plugin; valid until the next create()/call()/destroy() on this instance. */
  const char* (*last_error)(r2r_instance* instance);
} r2r_plugin_desc;

/* The entry point. Called once after the library is loaded, with the host's ABI version so a
 * plugin may adapt. Returns a pointer to an array of *count descriptor pointers.
 * OWNERSHIP: plugin, static storage. CONTRACT: no side effects, no allocation, no threads: it only
 * returns static data. Real work starts in create(). */
typedef const r2r_plugin_desc* const* (*r2r_plugin_entry_fn)(uint32_t host_abi_major, uint32_t host_abi_minor,
                                                             size_t* count);

R2R_EXPORT const r2r_plugin_desc* const* r2r_plugin_entry_v1(uint32_t host_abi_major, uint32_t host_abi_minor,
                                                             size_t* count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* R2R_PLUGIN_API_H */
