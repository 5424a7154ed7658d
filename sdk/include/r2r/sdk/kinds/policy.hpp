// SPDX-License-Identifier: MIT
// Typed messages of the policy kind. The wire shapes are
// plugin_api/schemas/policy/propose.{request,response}.schema.json; these structs mirror them.
// A policy plugin implements one method:
//   r2r::sdk::policy::proposal propose(const r2r::sdk::policy::propose_request&, r2r::sdk::call_context&);
// and lists it with r2r::sdk::policy::methods<T>().
//
// CONTRACT: a policy is a function of the request and of the opaque `state` it returned on the
// previous turn. The executor records both in trajectory.jsonl and rebuilds them on resume, so a
// policy keeps no other memory between turns (its instance may be destroyed and re-created).
#pragma once

#include <r2r/sdk/methods.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace r2r::sdk::policy {

/// One earlier turn as the executor recorded it (observation compacted and redacted).
struct turn_record {
  std::int64_t turn = 0;
  nlohmann::json action = nlohmann::json::object();
  std::string decision = "allow";  // "allow" | "deny"
  std::string guard;               // stage name of the denying guard
  std::string reason;
  std::string unlock;
  bool observed = false;  // false when denied (no observation)
  int exit_code = 0;
  std::string stdout_text;
  std::string stderr_text;
  bool truncated = false;
  bool timed_out = false;
  std::string error_signature;

  std::string action_type() const { return action.value("type", std::string()); }
  bool failed() const { return decision == "deny" || (observed && (exit_code != 0 || timed_out)); }
};
inline void from_json(const nlohmann::json& j, turn_record& t) {
  t.turn = j.value("turn", std::int64_t{0});
  t.action = j.at("action");
  const auto& d = j.at("decision");
  t.decision = d.value("decision", std::string("allow"));
  t.guard = d.value("guard", std::string());
  t.reason = d.value("reason", std::string());
  t.unlock = d.value("unlock", std::string());
  if (auto it = j.find("observation"); it != j.end() && it->is_object()) {
    t.observed = true;
    t.exit_code = it->value("exit_code", 0);
    t.stdout_text = it->value("stdout", std::string());
    t.stderr_text = it->value("stderr", std::string());
    t.truncated = it->value("truncated", false);
    t.timed_out = it->value("timed_out", false);
    t.error_signature = it->value("error_signature", std::string());
  }
}
inline void to_json(nlohmann::json& j, const turn_record& t) {
  nlohmann::json decision{{"decision", t.decision}};
  if (!t.guard.empty()) decision["guard"] = t.guard;
  if (!t.reason.empty()) decision["reason"] = t.reason;
  if (!t.unlock.empty()) decision["unlock"] = t.unlock;
  j = nlohmann::json{{"turn", t.turn}, {"action", t.action}, {"decision", decision}};
  if (t.observed) {
    nlohmann::json o{{"exit_code", t.exit_code}, {"stdout", t.stdout_text}, {"stderr", t.stderr_text}};
    if (t.truncated) o["truncated"] = true;
    if (t.timed_out) o["timed_out"] = true;
    if (!t.error_signature.empty()) o["error_signature"] = t.error_signature;
    j["observation"] = std::move(o);
  }
}

struct hint {
  std::string source;  // stuck_detector | memory | knowledge | operator
  std::string text;
  nlohmann::json fix;  // a proposed action, or null
  std::string provenance;
};
inline void from_json(const nlohmann::json& j, hint& h) {
  h.source = j.value("source", std::string());
  h.text = j.value("text", std::string());
  h.fix = j.value("fix", nlohmann::json());
  h.provenance = j.value("provenance", std::string());
}
inline void to_json(nlohmann::json& j, const hint& h) {
  j = nlohmann::json{{"source", h.source}, {"text", h.text}};
  if (!h.fix.is_null()) j["fix"] = h.fix;
  if (!h.provenance.empty()) j["provenance"] = h.provenance;
}

struct budget {
  std::int64_t turns_left = -1;  // -1: not capped
  double seconds_left = -1;
  std::int64_t tokens_left = -1;
  double usd_left = -1;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(budget, turns_left, seconds_left, tokens_left, usd_left)

struct run_context {
  int mode = 1;
  std::string arch;
  std::string image;
  std::string workspace;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(run_context, mode, arch, image, workspace)

struct propose_request {
  std::int64_t turn = 0;
  nlohmann::json plan = nlohmann::json::object();
  std::vector<turn_record> history;
  std::vector<policy::hint> hints;
  policy::budget budget;
  run_context context;
  nlohmann::json state;  // null on turn 0
};
inline void from_json(const nlohmann::json& j, propose_request& r) {
  r.turn = j.at("turn").get<std::int64_t>();
  r.plan = j.at("plan");
  r.history = j.at("history").get<std::vector<turn_record>>();
  r.hints = j.value("hints", std::vector<policy::hint>{});
  r.budget = j.value("budget", policy::budget{});
  r.context = j.value("context", run_context{});
  r.state = j.value("state", nlohmann::json());
}
inline void to_json(nlohmann::json& j, const propose_request& r) {
  j = nlohmann::json{{"turn", r.turn},     {"plan", r.plan},       {"history", r.history}, {"hints", r.hints},
                     {"budget", r.budget}, {"context", r.context}, {"state", r.state}};
}

struct usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double cost_usd = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(usage, input_tokens, output_tokens, cost_usd)

struct proposal {
  nlohmann::json action;  // must carry "type"; validated by the executor against action.schema.json
  std::string rationale;
  nlohmann::json state;
  policy::usage usage;
};
inline void to_json(nlohmann::json& j, const proposal& p) {
  j = nlohmann::json{{"action", p.action}, {"usage", p.usage}};
  if (!p.rationale.empty()) j["rationale"] = p.rationale;
  if (!p.state.is_null()) j["state"] = p.state;
}
inline void from_json(const nlohmann::json& j, proposal& p) {
  p.action = j.at("action");
  p.rationale = j.value("rationale", std::string());
  p.state = j.value("state", nlohmann::json());
  p.usage = j.value("usage", policy::usage{});
}

/// The method table every policy exposes.
template <class T>
method_table<T> methods() {
  return {method("propose", &T::propose)};
}

}  // namespace r2r::sdk::policy
