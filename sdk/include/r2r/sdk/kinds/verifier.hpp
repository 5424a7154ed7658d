// SPDX-License-Identifier: MIT
// Typed messages of the verifier kind. The wire shapes are
// plugin_api/schemas/verifier/{verify,judge}.{request,response}.schema.json; these structs mirror them.
// A verifier plugin implements
//   r2r::sdk::verifier::verify_response verify(const r2r::sdk::verifier::verify_request&,
//                                              r2r::sdk::call_context&);
// and, when its evidence can be stored and decided again, also
//   r2r::sdk::verifier::verify_response judge(const r2r::sdk::verifier::judge_request&,
//                                             r2r::sdk::call_context&);
// and lists them with r2r::sdk::verifier::methods<T>() (judge is listed when T has it).
//
// CONTRACT: a verifier owns the verdict. It re-runs what it needs through the host's "sandbox"
// service and never takes the agent's output as evidence. "pass" only when every check passed;
// with the required GPU absent it answers "no_device", never "pass"; "not_verified" when the
// evidence could not decide (truncated, unparseable, or not from outside the workload's reach).
// A verifier with judge returns its raw evidence as `capture`; judge({plan, mode, capture}) runs
// nothing and returns the same response verify returned for that capture (verify = collect + judge).
#pragma once

#include <r2r/sdk/methods.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::sdk::verifier {

struct sandbox_ref {
  std::string id;
  std::string workdir;
  std::string image;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(sandbox_ref, id, workdir, image)

struct device_info {
  std::string vendor = "none";  // amd | nvidia | none
  std::string arch;
  int index = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(device_info, vendor, arch, index)

struct ledger_entry {
  std::string component;
  std::string level;  // D0..D5
  std::string note;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ledger_entry, component, level, note)

struct verify_request {
  nlohmann::json plan = nlohmann::json::object();
  int mode = 1;
  std::optional<sandbox_ref> sandbox;
  device_info device;
  std::vector<ledger_entry> ledger;
  std::vector<nlohmann::json> earlier;  // responses of the verifiers before this one
  std::map<std::string, double> reference_metrics;
  std::string reference_source;
  std::string workload_log;
};
inline void from_json(const nlohmann::json& j, verify_request& r) {
  r.plan = j.at("plan");
  r.mode = j.at("mode").get<int>();
  if (auto it = j.find("sandbox"); it != j.end() && it->is_object()) r.sandbox = it->get<sandbox_ref>();
  r.device = j.value("device", device_info{});
  r.ledger = j.value("ledger", std::vector<ledger_entry>{});
  r.earlier = j.value("earlier", std::vector<nlohmann::json>{});
  if (auto it = j.find("reference"); it != j.end() && it->is_object()) {
    r.reference_metrics = it->value("metrics", std::map<std::string, double>{});
    r.reference_source = it->value("source", std::string());
  }
  r.workload_log = j.value("workload_log", std::string());
}
inline void to_json(nlohmann::json& j, const verify_request& r) {
  j = nlohmann::json{
      {"plan", r.plan}, {"mode", r.mode}, {"device", r.device}, {"ledger", r.ledger}, {"earlier", r.earlier}};
  if (r.sandbox) j["sandbox"] = *r.sandbox;
  if (!r.reference_metrics.empty() || !r.reference_source.empty())
    j["reference"] = nlohmann::json{{"metrics", r.reference_metrics}, {"source", r.reference_source}};
  if (!r.workload_log.empty()) j["workload_log"] = r.workload_log;
}

/// judge: decide again from a capture a verify response returned, running nothing.
struct judge_request {
  nlohmann::json plan = nlohmann::json::object();
  int mode = 1;
  nlohmann::json capture;  // the verifier's own format, e.g. "r2r.mode1.capture/1"
};
inline void from_json(const nlohmann::json& j, judge_request& r) {
  r.plan = j.at("plan");
  r.mode = j.at("mode").get<int>();
  r.capture = j.at("capture");
}
inline void to_json(nlohmann::json& j, const judge_request& r) {
  j = nlohmann::json{{"plan", r.plan}, {"mode", r.mode}, {"capture", r.capture}};
}

struct check {
  std::string name;
  std::string status;  // pass | fail | not_verified | skipped
  std::string detail;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(check, name, status, detail)

struct evidence_item {
  std::string kind;
  std::string detail;
  std::string source;
  nlohmann::json data;
};
inline void to_json(nlohmann::json& j, const evidence_item& e) {
  j = nlohmann::json{{"kind", e.kind}, {"detail", e.detail}};
  if (!e.source.empty()) j["source"] = e.source;
  if (!e.data.is_null()) j["data"] = e.data;
}
inline void from_json(const nlohmann::json& j, evidence_item& e) {
  e.kind = j.at("kind").get<std::string>();
  e.detail = j.value("detail", std::string());
  e.source = j.value("source", std::string());
  e.data = j.value("data", nlohmann::json());
}

struct workload_run {
  std::string command;
  int exit_code = -1;
  double seconds = 0;
  std::string log;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(workload_run, command, exit_code, seconds, log)

struct verify_response {
  std::string verdict = "fail";  // pass | fail | not_verified | no_device | error
  std::string summary;
  std::vector<check> checks;
  std::vector<evidence_item> evidence;
  std::map<std::string, double> metrics;
  std::optional<workload_run> workload;
  std::vector<ledger_entry> ledger;
  nlohmann::json capture;  // null: the verifier keeps no re-judgeable evidence

  /// "pass" only when there is at least one check and every check passed.
  bool all_checks_passed() const {
    if (checks.empty()) return false;
    for (const auto& c : checks)
      if (c.status != "pass") return false;
    return true;
  }
};
inline void to_json(nlohmann::json& j, const verify_response& r) {
  j = nlohmann::json{{"verdict", r.verdict},
                     {"checks", r.checks},
                     {"evidence", r.evidence},
                     {"metrics", r.metrics},
                     {"ledger", r.ledger}};
  if (!r.summary.empty()) j["summary"] = r.summary;
  if (r.workload) j["workload"] = *r.workload;
  if (!r.capture.is_null()) j["capture"] = r.capture;
}
inline void from_json(const nlohmann::json& j, verify_response& r) {
  r.verdict = j.at("verdict").get<std::string>();
  r.summary = j.value("summary", std::string());
  r.checks = j.at("checks").get<std::vector<check>>();
  r.evidence = j.value("evidence", std::vector<evidence_item>{});
  r.metrics = j.value("metrics", std::map<std::string, double>{});
  if (auto it = j.find("workload"); it != j.end() && it->is_object()) r.workload = it->get<workload_run>();
  r.ledger = j.value("ledger", std::vector<ledger_entry>{});
  r.capture = j.value("capture", nlohmann::json());
}

/// The method table every verifier exposes: verify, and judge when T has one.
template <class T>
method_table<T> methods() {
  if constexpr (requires { &T::judge; })
    return {method("verify", &T::verify), method("judge", &T::judge)};
  else
    return {method("verify", &T::verify)};
}

}  // namespace r2r::sdk::verifier
