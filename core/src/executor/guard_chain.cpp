// SPDX-License-Identifier: MIT
#include "guard_chain.hpp"

namespace r2r::executor {

nlohmann::json guard_verdict::to_json() const {
  nlohmann::json j{{"decision", allowed ? "allow" : "deny"}, {"ledger", ledger}};
  if (!guard.empty()) j["guard"] = guard;
  if (!reason.empty()) j["reason"] = reason;
  if (!unlock.empty()) j["unlock"] = unlock;
  return j;
}

guard_chain::guard_chain(core::pipeline_session& session) {
  for (const auto& m : session.stages()) {
    if (m.stage->stage == "guard") guards_.push_back({m.stage->name, m.instance});
  }
}

guard_verdict guard_chain::check(const nlohmann::json& action, const nlohmann::json& context) const {
  guard_verdict out;
  const nlohmann::json request{{"action", action}, {"context", context}};
  for (const auto& g : guards_) {
    auto deny = [&](std::string reason, std::string unlock) {
      out.allowed = false;
      out.guard = g.name;
      out.reason = std::move(reason);
      out.unlock = std::move(unlock);
      return out;
    };
    auto response = g.instance->call("check_action", request);
    if (!response) {
      return deny("guard " + g.name + " failed, so the action is denied (fail-closed): " + response.error().message,
                  "fix or remove the guard " + g.name);
    }
    const auto& r = *response;
    const auto d = r.is_object() ? r.find("decision") : r.end();
    if (!r.is_object() || d == r.end() || !d->is_string() || (*d != "allow" && *d != "deny")) {
      return deny("guard " + g.name +
                      " answered without an allow/deny decision, so the action is denied "
                      "(fail-closed); found " +
                      r.dump().substr(0, 200),
                  "fix the guard " + g.name);
    }
    if (*d == "deny") {
      return deny(r.value("reason", std::string("denied by ") + g.name), r.value("unlock", std::string()));
    }
    if (auto l = r.find("ledger"); l != r.end() && l->is_array()) {
      for (auto entry : *l) {
        if (!entry.is_object()) continue;
        entry["guard"] = g.name;
        out.ledger.push_back(std::move(entry));
      }
    }
  }
  return out;
}

nlohmann::json guard_chain::observe(const nlohmann::json& action, const nlohmann::json& observation,
                                    const nlohmann::json& context) const {
  nlohmann::json evidence = nlohmann::json::array();
  const nlohmann::json request{{"action", action}, {"observation", observation}, {"context", context}};
  for (const auto& g : guards_) {
    auto response = g.instance->call("observe", request);
    if (!response) {
      evidence.push_back({{"guard", g.name}, {"kind", "guard_error"}, {"detail", response.error().message}});
      continue;
    }
    if (auto e = response->find("evidence"); e != response->end() && e->is_array()) {
      for (const auto& item : *e) {
        if (!item.is_object()) continue;
        evidence.push_back({{"guard", g.name},
                            {"kind", item.value("kind", std::string())},
                            {"detail", item.value("detail", std::string())}});
      }
    }
  }
  return evidence;
}

}  // namespace r2r::executor
