// SPDX-License-Identifier: MIT
#include "mode2_verifier.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/kinds/sandbox.hpp>

#include <stdexcept>

namespace r2r::plugins::verifier {
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
  c.sandbox_service = j.value("sandbox_service", c.sandbox_service);
  if (c.differential_tolerance < 0) throw sdk::invalid_argument("differential_tolerance: expected >= 0");
}

mode2_verifier::mode2_verifier(const config& cfg, const sdk::host& host) : config_(cfg), host_(host) {}

std::vector<std::string> mode2_verifier::names_for(const std::string& metric) const {
  std::vector<std::string> names{metric};
  if (auto it = config_.aliases.find(metric); it != config_.aliases.end())
    names.insert(names.end(), it->second.begin(), it->second.end());
  return names;
}

mode2::extraction mode2_verifier::extract_planned(const nlohmann::json& metric, const std::string& log,
                                                  const sdk::verifier::verify_request& request,
                                                  sdk::call_context& ctx) const {
  const auto x = mode2::extractor_from_metric(metric);
  if (x.kind == "regex") return mode2::extract_by_regex(log, x.pattern);
  if (x.kind == "label") {
    auto names = names_for(metric.value("name", x.label));
    if (x.label != metric.value("name", std::string())) names.insert(names.begin(), x.label);
    return mode2::extract_by_label(log, names, x.qualifier, metric.value("unit", std::string()));
  }
  // json / csv: the file the verifier's own workload run left in the workspace, read through the sandbox.
  mode2::extraction e;
  e.rule = x.kind + " file " + x.file;
  if (!request.sandbox) {
    e.refusal = "the metric is read from " + x.file + " but the request has no sandbox to read it from";
    return e;
  }
  sdk::sandbox::exec_request exec;
  exec.sandbox_id = request.sandbox->id;
  exec.workdir = request.sandbox->workdir;
  exec.command = "cat -- \"$R2R_METRIC_FILE\"";
  exec.env = {{"R2R_METRIC_FILE", x.file}};
  exec.timeout_s = 60;
  exec.max_output_bytes = std::int64_t{8} << 20;
  const auto reply =
      ctx.call_service(config_.sandbox_service, "exec", nlohmann::json(exec)).get<sdk::sandbox::exec_response>();
  if (reply.exit_code != 0 || reply.truncated || reply.stdout_encoding != "utf-8") {
    e.refusal = "could not read " + x.file + " in the sandbox (exit " + std::to_string(reply.exit_code) +
                (reply.truncated ? ", truncated" : "") + "): " + reply.stderr_text.substr(0, 200);
    return e;
  }
  return x.kind == "json" ? mode2::extract_from_json(reply.stdout_text, x.key)
                          : mode2::extract_from_csv(reply.stdout_text, x.column);
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
    mode2::extraction found;
    try {
      found = extract_planned(*metric, log, request, ctx);
    } catch (const std::invalid_argument& e) {
      found.refusal = e.what();
    }
    if (!found.value) {
      r.checks.push_back(
          {"metric_" + name,
           found.candidates.empty() && found.refusal.starts_with("the log never") ? "fail" : "not_verified",
           "'" + name + "' not read (" + found.rule + "): " + mode2::describe_refusal(found)});
    } else {
      const double observed = *found.value;
      r.metrics[name] = observed;
      const auto c = mode2::compare(observed, target, tol, direction);
      r.checks.push_back({"metric_" + name, c.within ? "pass" : "fail", c.detail + " (read by " + found.rule + ")"});
      r.evidence.push_back(
          {"metric",
           name + " = " + std::to_string(observed),
           source,
           {{"observed", observed}, {"target", target}, {"deviation", c.deviation}, {"rule", found.rule}}});
    }
  }
  for (const auto& [name, reference] : request.reference_metrics) {
    const std::string check = "reference_" + name;
    std::string unit;
    if (has_target && (*metric)["name"] == name) unit = metric->value("unit", std::string());
    const auto found = mode2::extract_by_label(log, names_for(name), "", unit);
    if (!found.value) {
      r.checks.push_back(
          {check, found.candidates.empty() ? "fail" : "not_verified",
           "'" + name + "' not read from the ROCm run (the reference run has it): " + mode2::describe_refusal(found)});
      continue;
    }
    const auto observed = found.value;
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

}  // namespace r2r::plugins::verifier
