// SPDX-License-Identifier: MIT
// build_report(): bundle_inputs + trajectory -> report.json (configs/schema/report.schema.json).
#include "bundle_render.hpp"
#include "plan_checks.hpp"
#include "report_target.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/json_schema.hpp>
#include <r2r/report/bundle.hpp>
#include <r2r/report/trajectory.hpp>

#include <algorithm>

namespace r2r::report {
namespace {

using nlohmann::json;

std::string verdict_meaning(const std::string& verdict) {
  if (verdict == "pass") return "verified: the workload ran on the AMD GPU with runtime evidence";
  if (verdict == "fail") return "not verified: a verifier check failed or its evidence could not decide";
  if (verdict == "no_device") return "no ROCm device to verify on: no verdict";
  return "error: a verifier could not finish, or none ran";
}

/// First string among `keys` in a probe evidence's data.
json probe_value(const std::vector<json>& evidence, std::initializer_list<const char*> keys) {
  for (const auto& e : evidence) {
    if (e.value("kind", "") != "probe" || !e.contains("data") || !e["data"].is_object()) continue;
    for (const char* k : keys)
      if (e["data"].contains(k) && e["data"][k].is_string()) return e["data"][k];
  }
  return nullptr;
}

}  // namespace

std::string combine_verdicts(const std::vector<std::string>& verdicts) {
  if (verdicts.empty()) return "error";
  for (const char* v : {"error", "no_device", "fail"})
    if (std::find(verdicts.begin(), verdicts.end(), v) != verdicts.end()) return v;
  // A verifier's not_verified (evidence that could not decide) is not a pass: the run is "fail".
  if (std::find(verdicts.begin(), verdicts.end(), "not_verified") != verdicts.end()) return "fail";
  for (const auto& v : verdicts)
    if (v != "pass") return "error";  // a verdict this build does not know is never a pass
  return "pass";
}

int exit_code_of(const std::string& verdict) {
  if (verdict == "pass") return 0;
  if (verdict == "fail") return 3;
  if (verdict == "no_device") return 4;
  return 1;
}

core::result<json> build_report(const bundle_inputs& in, const std::vector<json>& trajectory) {
  if (!in.plan.is_object() || !in.plan.contains("repository") || !in.plan["repository"].is_object())
    return core::fail(core::phase::config,
                      "bundle: plan has no repository object; expected the plan.json written by `repo2rocm plan`");
  if (in.mode < 0 || in.mode > 2)
    return core::fail(core::phase::config, "bundle: mode must be 0, 1 or 2; found " + std::to_string(in.mode));

  const auto* response_schema = core::message_schema("verifier", "verify", false);
  std::vector<std::string> verdicts;
  json checks = json::array(), evidence_out = json::array(), verifiers = json::array(), metrics = json::object();
  std::vector<json> evidence;
  std::optional<std::string> executed;
  json workload_run = nullptr;
  std::vector<ledger_entry> ledger;
  auto guards = guard_ledger(trajectory);
  if (!guards) return tl::unexpected(guards.error());
  ledger = std::move(*guards);

  for (const auto& v : in.verifiers) {
    if (response_schema != nullptr) {
      const auto violations = response_schema->validate(v.response);
      if (!violations.empty())
        return core::fail(core::phase::run,
                          "bundle: the response of verifier " + v.plugin_id +
                              " is not a valid verify response: " + core::format_violation(violations.front()),
                          v.plugin_id);
    }
    const std::string verdict = v.response.at("verdict").get<std::string>();
    verdicts.push_back(verdict);
    verifiers.push_back({{"id", v.plugin_id},
                         {"version", v.version},
                         {"verdict", verdict},
                         {"summary", v.response.value("summary", "")}});
    for (const auto& c : v.response.at("checks")) {
      json item = {{"name", c.at("name")},
                   {"status", c.at("status")},
                   {"detail", c.value("detail", "")},
                   {"verifier", v.plugin_id}};
      checks.push_back(std::move(item));
    }
    const json verifier_evidence = v.response.value("evidence", json::array());
    for (const auto& e : verifier_evidence) {
      json item = {{"kind", e.at("kind")},
                   {"detail", e.value("detail", "")},
                   {"source", e.value("source", "")},
                   {"verifier", v.plugin_id}};
      if (e.contains("data")) item["data"] = e["data"];
      evidence.push_back(item);
      evidence_out.push_back(std::move(item));
    }
    const json verifier_metrics = v.response.value("metrics", json::object());
    for (const auto& [k, val] : verifier_metrics.items()) metrics[k] = val;
    if (!executed && v.response.contains("workload") && v.response["workload"].contains("command")) {
      const auto& w = v.response["workload"];
      executed = w["command"].get<std::string>();
      workload_run = {{"command", *executed},
                      {"exit_code", w.value("exit_code", -1)},
                      {"seconds", w.value("seconds", 0.0)},
                      {"verifier", v.plugin_id}};
    }
    auto vl = verifier_ledger(v.response, v.plugin_id);
    if (!vl) return tl::unexpected(vl.error());
    ledger.insert(ledger.end(), vl->begin(), vl->end());
  }

  pfs_inputs pin;
  const auto deviations = detail::compare_plan(in.plan, executed, in.image_used, in.environment_freeze, pin);
  ledger.insert(ledger.end(), deviations.begin(), deviations.end());
  pin.verdict = combine_verdicts(verdicts);
  for (const auto& e : evidence) pin.evidence_kinds.push_back(e.value("kind", ""));
  pin.ledger = ledger;
  if (trajectory.empty()) pin.missing_files.push_back("trajectory.jsonl");
  if (!detail::has_commands(detail::render_commands_log(in))) pin.missing_files.push_back("commands.log");
  if (in.verifiers.empty()) pin.missing_files.push_back("verifier responses");
  const pfs_breakdown pfs = compute_pfs(pin);

  json ledger_json = json::array();
  for (const auto& e : ledger) ledger_json.push_back(to_json(e));
  json plugins = json::array();
  for (const auto& p : in.plugins) plugins.push_back({{"id", p.id}, {"version", p.version}});
  const auto usage = sum_usage(trajectory);
  const auto planned = detail::planned_workload(in.plan);
  const auto& repo = in.plan["repository"];

  json pfs_json = to_json(pfs);
  pfs_json["inputs"] = to_json(pin);
  std::string reason = pfs.ran.why;
  if (verdicts.empty()) reason = "no verifier ran, so there is no verdict";
  json report{
      {"schema_version", 1},
      {"verdict", pin.verdict},
      {"verdict_reason", reason},
      {"exit_code", {{"code", exit_code_of(pin.verdict)}, {"meaning", verdict_meaning(pin.verdict)}}},
      {"mode", in.mode},
      {"repository",
       {{"url", repo.value("url", "")}, {"commit", repo.value("commit", "")}, {"source", repo.value("source", "")}}},
      {"verifiers", verifiers},
      {"checks", checks},
      {"evidence", evidence_out},
      {"metrics", metrics},
      {"workload", {{"planned_command", planned ? json(*planned) : json(nullptr)}, {"executed", workload_run}}},
      {"ledger", ledger_json},
      {"pfs", pfs_json},
      {"costs",
       {{"input_tokens", usage.input_tokens},
        {"output_tokens", usage.output_tokens},
        {"usd", usage.cost_usd},
        {"wall_seconds", in.wall_seconds},
        {"turns", usage.turns}}},
      {"versions",
       {{"repo2rocm", in.repo2rocm_version},
        {"plugins", plugins},
        {"image", in.image_used},
        {"rocm", probe_value(evidence, {"rocm_version", "rocm", "hip_version"})},
        {"torch", probe_value(evidence, {"torch_version", "torch"})}}}};
  if (auto target = detail::report_target(in.plan.value("metric", json(nullptr)), metrics); !target.is_null())
    report["target"] = std::move(target);
  return report;
}

}  // namespace r2r::report
