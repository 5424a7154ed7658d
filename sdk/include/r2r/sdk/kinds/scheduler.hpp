// SPDX-License-Identifier: MIT
// Typed messages of the scheduler kind. The wire shapes are plugin_api/schemas/scheduler/*.schema.json;
// these structs mirror them. A scheduler plugin implements:
//   r2r::sdk::scheduler::capabilities_response capabilities(const r2r::sdk::scheduler::capabilities_request&);
//   r2r::sdk::scheduler::submit_response submit(const r2r::sdk::scheduler::job&);
//   r2r::sdk::scheduler::status_response status(const r2r::sdk::scheduler::status_request&);
//   r2r::sdk::scheduler::cancel_response cancel(const r2r::sdk::scheduler::cancel_request&);
// and lists them with r2r::sdk::scheduler::methods<T>().
// Contract: ids are stable across plugin instances (a batch resumed by a new process asks a new
// instance about the ids an old one gave); submit of a state_dir that already holds a live or
// finished job adopts it and never starts the command twice.
#pragma once

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/methods.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::sdk::scheduler {

struct capabilities_request {};
inline void from_json(const nlohmann::json& j, capabilities_request&) {
  if (!j.is_object())
    throw invalid_argument("the capabilities request must be a JSON object, found " + std::string(j.type_name()));
}

struct capabilities_response {
  std::string scheduler;
  std::int64_t slots = 1;
  std::int64_t max_queue = 0;
  bool shared_filesystem = false;
  bool cancel = true;
  std::vector<std::string> gpus;
  double poll_interval_s = 0;  // 0: not said
  bool status_wait = false;    // status honours wait_s: it blocks until a job ends (or wait_s passes)
  std::string notes;
};
inline void to_json(nlohmann::json& j, const capabilities_response& c) {
  j = {{"scheduler", c.scheduler}, {"slots", c.slots},
       {"max_queue", c.max_queue}, {"shared_filesystem", c.shared_filesystem},
       {"cancel", c.cancel},       {"gpus", c.gpus}};
  if (c.poll_interval_s > 0) j["poll_interval_s"] = c.poll_interval_s;
  if (c.status_wait) j["status_wait"] = true;
  if (!c.notes.empty()) j["notes"] = c.notes;
}

struct job {
  std::string name;
  std::vector<std::string> argv;  // "{gpu}" in any element becomes the pinned GPU index
  std::string state_dir;          // absolute; owned by the scheduler for this attempt
  std::string workdir;            // empty: state_dir
  std::map<std::string, std::string> env;
  std::int64_t gpus = 1;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(job, name, argv, state_dir, workdir, env, gpus)

struct submit_response {
  bool accepted = false;
  std::string id;
  bool adopted = false;
  std::string reason;
};
inline void to_json(nlohmann::json& j, const submit_response& r) {
  j = {{"accepted", r.accepted}};
  if (!r.id.empty()) j["id"] = r.id;
  if (r.adopted) j["adopted"] = true;
  if (!r.reason.empty()) j["reason"] = r.reason;
}

/// wait_s > 0 (for a scheduler whose capabilities say status_wait): when every job asked about is
/// still queued or running, wait up to wait_s seconds for one of them to end before answering, so
/// the caller learns of an ended job at once instead of by polling. Others ignore it.
struct status_request {
  std::vector<std::string> ids;
  double wait_s = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(status_request, ids, wait_s)

/// queued, running | succeeded, failed, cancelled, lost (final) | unknown (never started: safe to
/// submit again), unreachable (could not ask now: try later).
struct job_status {
  std::string id;
  std::string state;
  std::optional<std::int64_t> exit_code;
  std::optional<std::int64_t> signal;
  std::string gpu, render_node, node, reason;
  std::optional<double> started_at, finished_at;
};
inline void to_json(nlohmann::json& j, const job_status& s) {
  j = {{"id", s.id}, {"state", s.state}};
  if (s.exit_code) j["exit_code"] = *s.exit_code;
  if (s.signal) j["signal"] = *s.signal;
  if (!s.gpu.empty()) j["gpu"] = s.gpu;
  if (!s.render_node.empty()) j["render_node"] = s.render_node;
  if (!s.node.empty()) j["node"] = s.node;
  if (!s.reason.empty()) j["reason"] = s.reason;
  if (s.started_at) j["started_at"] = *s.started_at;
  if (s.finished_at) j["finished_at"] = *s.finished_at;
}

struct status_response {
  std::vector<job_status> jobs;
};
inline void to_json(nlohmann::json& j, const status_response& r) {
  j = {{"jobs", r.jobs}};
}

struct cancel_request {
  std::string id;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(cancel_request, id)

struct cancel_response {
  bool cancelled = false;
  std::string state;
  std::string reason;
};
inline void to_json(nlohmann::json& j, const cancel_response& r) {
  j = {{"cancelled", r.cancelled}};
  if (!r.state.empty()) j["state"] = r.state;
  if (!r.reason.empty()) j["reason"] = r.reason;
}

/// The method table every scheduler exposes.
template <class T>
method_table<T> methods() {
  return {method("capabilities", &T::capabilities), method("submit", &T::submit), method("status", &T::status),
          method("cancel", &T::cancel)};
}

}  // namespace r2r::sdk::scheduler
