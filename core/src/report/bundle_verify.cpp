// SPDX-License-Identifier: MIT
// verify_bundle(): integrity (manifest), schema, verdict, PFS and ledger re-derived from the files.
#include "plan_checks.hpp"
#include "report_facts.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/json_schema.hpp>
#include <r2r/report/bundle.hpp>
#include <r2r/report/manifest.hpp>
#include <r2r/report/trajectory.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace r2r::report {
namespace {

using nlohmann::json;

constexpr const char* required_files[] = {"Dockerfile", "repo.tar",    "patch.diff",  "commands.log",
                                          "plan.json",  "report.json", "report.html", "trajectory.jsonl"};

tl::unexpected<core::error> bad(const std::filesystem::path& dir, const std::string& file, const std::string& message) {
  return core::fail(core::phase::io, file + ": " + message, "", (dir / file).string());
}

core::result<std::string> read_text(const std::filesystem::path& dir, const std::string& name) {
  std::ifstream in(dir / name, std::ios::binary);
  if (!in) return bad(dir, name, "cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

core::result<json> read_json(const std::filesystem::path& dir, const std::string& name) {
  auto text = read_text(dir, name);
  if (!text) return tl::unexpected(text.error());
  try {
    return json::parse(*text);
  } catch (const json::parse_error& e) {
    return bad(dir, name, std::string("is not valid JSON: ") + e.what());
  }
}

std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

core::result<void> check_integrity(const std::filesystem::path& dir, std::vector<std::string>& notes) {
  auto text = read_text(dir, std::string(manifest_name));
  if (!text) return bad(dir, std::string(manifest_name), "missing or unreadable; this is not a complete bundle");
  auto listed = parse_manifest(*text);
  if (!listed) return tl::unexpected(listed.error());
  auto present = hash_directory(dir);
  if (!present) return tl::unexpected(present.error());
  std::map<std::string, std::string> have;
  for (const auto& e : *present) have[e.name] = e.sha256;
  std::set<std::string> names;
  for (const auto& e : *listed) {
    names.insert(e.name);
    const auto it = have.find(e.name);
    if (it == have.end()) return bad(dir, e.name, "listed in MANIFEST.sha256 but missing from the bundle");
    if (it->second != e.sha256)
      return bad(dir, e.name,
                 "SHA-256 mismatch: MANIFEST.sha256 says " + e.sha256 + ", the file has " + it->second +
                     "; the file was changed after the bundle was written");
  }
  for (const auto& [name, digest] : have)
    if (!names.count(name))
      return bad(dir, name, "is not listed in MANIFEST.sha256; it was added after the bundle was written");
  for (const char* f : required_files)
    if (!have.count(f)) return bad(dir, f, "missing: every bundle has it (docs/bundle.md)");
  notes.push_back("integrity: " + std::to_string(listed->size()) + " files match MANIFEST.sha256, none unlisted");
  return {};
}

core::result<void> check_schema(const std::filesystem::path& dir, const json& report, std::vector<std::string>& notes) {
  const auto* schema = core::embedded_schema("report.schema.json");
  if (schema == nullptr)
    return core::fail(core::phase::schema, "report.schema.json is not embedded in this binary; rebuild repo2rocm");
  const auto violations = schema->validate(report);
  if (!violations.empty()) {
    std::string all;
    for (const auto& v : violations) all += "\n  " + core::format_violation(v);
    return bad(dir, "report.json", "does not match configs/schema/report.schema.json:" + all);
  }
  notes.push_back("schema: report.json is valid against report.schema.json");
  return {};
}

core::result<void> check_verdict(const std::filesystem::path& dir, const json& report,
                                 std::vector<std::string>& notes) {
  const std::string verdict = report["verdict"];
  std::vector<std::string> verdicts;
  std::map<std::string, std::vector<std::string>> statuses;  // verifier -> check statuses
  for (const auto& c : report["checks"]) statuses[c["verifier"]].push_back(c["status"]);
  for (const auto& v : report["verifiers"]) {
    const std::string id = v["id"], vv = v["verdict"];
    verdicts.push_back(vv);
    if (vv != "pass") continue;
    const auto& st = statuses[id];
    if (st.empty()) return bad(dir, "report.json", "verifiers[" + id + "].verdict is pass but it recorded no check");
    for (const auto& s : st)
      if (s != "pass")
        return bad(dir, "report.json", "verifiers[" + id + "].verdict is pass but one of its checks is " + s);
  }
  const std::string derived = combine_verdicts(verdicts);
  if (derived != verdict)
    return bad(dir, "report.json",
               "verdict is \"" + verdict + "\" but the verifiers' verdicts give \"" + derived + "\"");
  if (verdict == "pass") {
    bool runtime = false;
    for (const auto& e : report["evidence"]) runtime = runtime || is_runtime_evidence(e["kind"]);
    if (!runtime)
      return bad(dir, "report.json", "verdict is pass without evidence of kind kernel_trace, gpu_process or probe");
  }
  if (verdict == "fail") {
    bool failed = false;
    for (const auto& c : report["checks"]) failed = failed || c["status"] != "pass";
    if (!failed) return bad(dir, "report.json", "verdict is fail but every check passed");
  }
  if (report["exit_code"]["code"] != exit_code_of(verdict))
    return bad(dir, "report.json",
               "exit_code.code is " + report["exit_code"]["code"].dump() + "; verdict " + verdict + " means " +
                   std::to_string(exit_code_of(verdict)));
  notes.push_back("verdict: " + verdict + " follows from " + std::to_string(verdicts.size()) +
                  " verifier verdict(s), their checks and evidence");
  return {};
}

core::result<void> check_ledger(const std::filesystem::path& dir, const json& report, const pfs_inputs& facts,
                                std::vector<std::string>& notes) {
  auto text = read_text(dir, "trajectory.jsonl");
  if (!text) return tl::unexpected(text.error());
  auto trajectory = parse_trajectory(*text, "trajectory.jsonl");
  if (!trajectory) return tl::unexpected(trajectory.error());
  auto expected = guard_ledger(*trajectory);
  if (!expected) return tl::unexpected(expected.error());
  std::vector<ledger_entry> recorded;
  for (const auto& e : facts.ledger)
    if (source_kind(e) == "guard") recorded.push_back(e);
  for (std::size_t i = 0; i < std::max(recorded.size(), expected->size()); ++i) {
    if (i >= recorded.size())
      return bad(dir, "report.json",
                 "ledger lacks the guard entry for " + (*expected)[i].component + " (turn " +
                     std::to_string((*expected)[i].turn.value_or(-1)) + ") that trajectory.jsonl records");
    if (i >= expected->size() || !(recorded[i] == (*expected)[i]))
      return bad(dir, "report.json",
                 "ledger guard entry " + std::to_string(i + 1) + " (" + recorded[i].component + " " +
                     level_name(recorded[i].level) + ") does not match trajectory.jsonl's decisions");
  }
  const auto usage = sum_usage(*trajectory);
  if (report["costs"]["turns"] != usage.turns)
    return bad(dir, "report.json",
               "costs.turns is " + report["costs"]["turns"].dump() + "; trajectory.jsonl has " +
                   std::to_string(usage.turns) + " records");
  notes.push_back("ledger: " + std::to_string(recorded.size()) + " guard entries match trajectory.jsonl");
  return {};
}

core::result<double> check_pfs(const std::filesystem::path& dir, const json& report, const json& plan,
                               const pfs_inputs& facts, std::vector<std::string>& notes) {
  std::set<std::string> graded;
  for (const auto& c : facts.critical_components) graded.insert(normalize_component(c));
  for (const auto& c : detail::critical_components(plan))
    if (!graded.count(normalize_component(c)))
      return bad(dir, "report.json", "pfs.inputs.critical_components lacks " + c + ", a kernel build of plan.json");
  const auto planned = detail::planned_workload(plan);
  const auto& executed = report["workload"]["executed"];
  const bool matches = planned && executed.is_object() &&
                       detail::normalize_command(*planned) == detail::normalize_command(executed["command"]);
  if (matches != facts.workload_matches_plan || executed.is_object() != facts.workload_executed)
    return bad(dir, "report.json", "pfs.inputs.workload_* disagree with plan.json's workload and workload.executed");
  if (report["repository"]["commit"] != plan["repository"].value("commit", ""))
    return bad(dir, "report.json", "repository.commit differs from plan.json's");
  const pfs_breakdown b = compute_pfs(facts);
  const auto& p = report["pfs"];
  const std::pair<const char*, const pfs_term*> terms[] = {
      {"ran", &b.ran}, {"f_path", &b.f_path}, {"a_work", &b.a_work}, {"a_env", &b.a_env}, {"d_proc", &b.d_proc}};
  for (const auto& [name, term] : terms) {
    const double recorded = p[name]["value"];
    if (std::fabs(recorded - term->value) > 1e-9)
      return bad(dir, "report.json",
                 std::string("pfs.") + name + ".value is " + fmt(recorded) + "; recomputed " + fmt(term->value));
  }
  const double score = p["score"];
  if (std::fabs(score - b.score) > 1e-9)
    return bad(dir, "report.json", "pfs.score is " + fmt(score) + "; recomputed from its terms " + fmt(b.score));
  notes.push_back("pfs: " + fmt(b.score) + " recomputed from the recorded facts");
  return b.score;
}

}  // namespace

core::result<verify_outcome> verify_bundle(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir))
    return core::fail(core::phase::usage, dir.string() + " is not a directory; pass the bundle directory a run wrote",
                      "", dir.string());
  verify_outcome out;
  if (auto r = check_integrity(dir, out.notes); !r) return tl::unexpected(r.error());
  auto report = read_json(dir, "report.json");
  if (!report) return tl::unexpected(report.error());
  auto plan = read_json(dir, "plan.json");
  if (!plan) return tl::unexpected(plan.error());
  if (!plan->is_object() || !plan->contains("repository") || !(*plan)["repository"].is_object())
    return bad(dir, "plan.json", "has no repository object");
  if (auto r = check_schema(dir, *report, out.notes); !r) return tl::unexpected(r.error());
  if (auto r = check_verdict(dir, *report, out.notes); !r) return tl::unexpected(r.error());
  auto facts = detail::pfs_facts(*report);
  if (!facts) return tl::unexpected(facts.error());
  if (auto r = check_ledger(dir, *report, *facts, out.notes); !r) return tl::unexpected(r.error());
  auto score = check_pfs(dir, *report, *plan, *facts, out.notes);
  if (!score) return tl::unexpected(score.error());
  out.verdict = (*report)["verdict"];
  out.pfs = *score;
  return out;
}

}  // namespace r2r::report
