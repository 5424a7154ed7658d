// SPDX-License-Identifier: MIT
#include "mode2_verifier.hpp"

#include <r2r/sdk/error.hpp>

namespace r2r::verifiers {
namespace {

namespace v = sdk::verifier;

/// The workload log of the first Mode 1 result in `earlier` that passed; nullptr when none passed.
const nlohmann::json* mode1_pass(const std::vector<nlohmann::json>& earlier) {
  for (const auto& e : earlier) {
    if (!e.is_object() || e.value("verdict", std::string()) != "pass") continue;
    if (e.contains("workload") && e["workload"].is_object()) return &e;
  }
  return nullptr;
}

}  // namespace

void from_json(const nlohmann::json& j, mode2_verifier::config& c) {
  if (!j.is_object()) throw sdk::invalid_argument("config must be a JSON object");
  c.aliases = j.value("aliases", c.aliases);
  c.differential_tolerance = j.value("differential_tolerance", c.differential_tolerance);
  c.require_mode1 = j.value("require_mode1", c.require_mode1);
  if (c.differential_tolerance < 0) throw sdk::invalid_argument("differential_tolerance: expected >= 0");
}

mode2_verifier::mode2_verifier(const config& cfg, const sdk::host& host) : config_(cfg), host_(host) {}

std::vector<std::string> mode2_verifier::names_for(const std::string& metric) const {
  std::vector<std::string> names{metric};
  if (auto it = config_.aliases.find(metric); it != config_.aliases.end())
    names.insert(names.end(), it->second.begin(), it->second.end());
  return names;
}

sdk::verifier::verify_response mode2_verifier::verify(const sdk::verifier::verify_request& request,
                                                      sdk::call_context& ctx) {
  ctx.throw_if_cancelled();
  v::verify_response r;
  const nlohmann::json* m1 = mode1_pass(request.earlier);
  if (config_.require_mode1 && m1 == nullptr) {
    r.verdict = "fail";
    r.summary = "Mode 2 needs a Mode 1 pass first: not verified";
    r.checks.push_back({"mode1_pass", "not_verified",
                        "no earlier verifier result with verdict \"pass\"; run r2r.verifier.mode1-rocm before this "
                        "verifier in the verify stage"});
    return r;
  }
  r.checks.push_back({"mode1_pass", "pass", m1 != nullptr ? "an earlier Mode 1 run passed" : "not required"});

  std::string log = request.workload_log;
  std::string source = "request.workload_log";
  if (m1 != nullptr) {
    log = (*m1)["workload"].value("log", std::string());
    source = "Mode 1 workload log";
  }
  r.evidence.push_back({"workload_log", std::to_string(log.size()) + " bytes", source, nullptr});

  const auto metric = request.plan.find("metric");
  const bool has_target = metric != request.plan.end() && metric->is_object() && metric->contains("name");
  if (!has_target && request.reference_metrics.empty()) {
    r.verdict = "fail";
    r.summary = "no metric target in the plan and no reference run: not verified";
    r.checks.push_back({"metric_target", "not_verified", "plan.metric is null and the request has no reference"});
    return r;
  }
  if (has_target) {
    const std::string name = (*metric)["name"];
    const double target = metric->value("value", 0.0);
    const std::string klass = metric->value("class", std::string("other"));
    const std::string direction = metric->value("direction", std::string("higher"));
    mode2::tolerance tol = mode2::default_tolerance(klass);
    if (const auto t = metric->find("tolerance"); t != metric->end() && t->is_object()) {
      tol.kind = t->value("kind", tol.kind);
      tol.value = t->value("value", tol.value);
      if (tol.kind == "relative" && tol.value >= 1) tol.value /= 100;  // "5" meaning 5 %
    }
    const auto observed = mode2::extract_metric(log, names_for(name));
    if (!observed) {
      r.checks.push_back({"metric_" + name, "fail", "the workload log never prints '" + name + "' with a value"});
    } else {
      r.metrics[name] = *observed;
      const auto c = mode2::compare(*observed, target, tol, direction);
      r.checks.push_back({"metric_" + name, c.within ? "pass" : "fail", c.detail});
      r.evidence.push_back({"metric",
                            name + " = " + std::to_string(*observed),
                            source,
                            {{"observed", *observed}, {"target", target}, {"deviation", c.deviation}}});
    }
  }
  for (const auto& [name, reference] : request.reference_metrics) {
    const auto observed = mode2::extract_metric(log, names_for(name));
    const std::string check = "reference_" + name;
    if (!observed) {
      r.checks.push_back({check, "fail", "the ROCm run never prints '" + name + "' (the reference run has it)"});
      continue;
    }
    r.metrics[name] = *observed;
    std::string klass = "other";
    if (has_target && (*metric)["name"] == name) klass = metric->value("class", klass);
    mode2::tolerance tol = mode2::default_tolerance(klass);
    if (config_.differential_tolerance > 0) tol = {"relative", config_.differential_tolerance};
    const auto c = mode2::compare(*observed, reference, tol, "higher");
    r.checks.push_back({check, c.within ? "pass" : "fail",
                        c.detail + " against the reference run" +
                            (request.reference_source.empty() ? "" : " (" + request.reference_source + ")")});
  }
  r.verdict = r.all_checks_passed() ? "pass" : "fail";
  std::string failed;
  for (const auto& c : r.checks)
    if (c.status != "pass") failed += (failed.empty() ? "" : ", ") + c.name;
  r.summary = r.verdict == "pass" ? "metrics reproduced within tolerance" : "not reproduced: " + failed;
  return r;
}

}  // namespace r2r::verifiers
