// SPDX-License-Identifier: MIT
// Typed messages of the guard kind. The wire shapes are plugin_api/schemas/guard/*.schema.json;
// these structs mirror them. A guard plugin implements:
//   r2r::sdk::guard::decision check_action(const r2r::sdk::guard::check_request&);
//   r2r::sdk::guard::observe_response observe(const r2r::sdk::guard::observe_request&);
// and lists both with r2r::sdk::guard::methods<T>().
#pragma once

#include <r2r/sdk/methods.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace r2r::sdk::guard {

/// What the policy proposes. `type` is one of the action kinds (run, write_file, install, ...);
/// the other fields depend on it and are kept as JSON so guards see exactly what will run.
struct action {
  std::string type;
  nlohmann::json fields = nlohmann::json::object();  // the whole action object, `type` included

  std::string text(const char* key) const {
    auto it = fields.find(key);
    return it != fields.end() && it->is_string() ? it->get<std::string>() : std::string();
  }
};
inline void from_json(const nlohmann::json& j, action& a) {
  a.type = j.at("type").get<std::string>();
  a.fields = j;
}
inline void to_json(nlohmann::json& j, const action& a) {
  j = a.fields;
  j["type"] = a.type;
}

struct run_context {
  int mode = 1;      // 0, 1 or 2 (ARCHITECTURE.md)
  std::string arch;  // target gfx, e.g. "gfx942"; empty when unknown
  std::int64_t turn = 0;
  // Set by the executor, never by the policy: the verifier stage ran on the current workspace
  // state (no action changed it since), and whether it passed. Absent means false.
  bool verifier_ran = false;
  bool verifier_passed = false;
  // Set by the executor: the run's plan.json (null when the caller has none) and the image the
  // sandbox runs now (empty when unknown).
  nlohmann::json plan;
  std::string image;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(run_context, mode, arch, turn, verifier_ran, verifier_passed, plan,
                                                image)

struct check_request {
  guard::action action;
  run_context context;
};
inline void from_json(const nlohmann::json& j, check_request& r) {
  r.action = j.at("action").get<guard::action>();
  r.context = j.value("context", run_context{});
}
inline void to_json(nlohmann::json& j, const check_request& r) {
  j = nlohmann::json{{"action", r.action}, {"context", r.context}};
}

/// One substitution that an allowed action introduces (ROCM.md: D0 none ... D5 semantics changed).
struct ledger_entry {
  std::string component;
  std::string level;  // "D0".."D5"
  std::string note;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ledger_entry, component, level, note)

struct decision {
  std::string verdict = "allow";  // "allow" | "deny"
  std::string reason;             // why; required for deny
  std::string unlock;             // the evidence or justification that would turn a deny into allow
  std::vector<ledger_entry> ledger;

  static decision allow() { return decision{}; }
  static decision deny(std::string why, std::string what_unlocks) {
    decision d;
    d.verdict = "deny";
    d.reason = std::move(why);
    d.unlock = std::move(what_unlocks);
    return d;
  }
};
inline void to_json(nlohmann::json& j, const decision& d) {
  j = nlohmann::json{{"decision", d.verdict}, {"reason", d.reason}, {"unlock", d.unlock}, {"ledger", d.ledger}};
}
inline void from_json(const nlohmann::json& j, decision& d) {
  d.verdict = j.at("decision").get<std::string>();
  d.reason = j.value("reason", std::string());
  d.unlock = j.value("unlock", std::string());
  d.ledger = j.value("ledger", std::vector<ledger_entry>{});
}

struct observation {
  int exit_code = 0;
  std::string stdout_text;
  std::string stderr_text;
};
inline void from_json(const nlohmann::json& j, observation& o) {
  o.exit_code = j.value("exit_code", 0);
  o.stdout_text = j.value("stdout", std::string());
  o.stderr_text = j.value("stderr", std::string());
}
inline void to_json(nlohmann::json& j, const observation& o) {
  j = nlohmann::json{{"exit_code", o.exit_code}, {"stdout", o.stdout_text}, {"stderr", o.stderr_text}};
}

struct observe_request {
  guard::action action;
  guard::observation observation;
  run_context context;
};
inline void from_json(const nlohmann::json& j, observe_request& r) {
  r.action = j.at("action").get<guard::action>();
  r.observation = j.at("observation").get<guard::observation>();
  r.context = j.value("context", run_context{});
}

struct evidence_item {
  std::string kind;
  std::string detail;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(evidence_item, kind, detail)

struct observe_response {
  std::vector<evidence_item> evidence;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(observe_response, evidence)

/// The method table every guard exposes.
template <class T>
method_table<T> methods() {
  return {method("check_action", &T::check_action), method("observe", &T::observe)};
}

}  // namespace r2r::sdk::guard
