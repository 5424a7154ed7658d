// SPDX-License-Identifier: MIT
// report.json, the Dockerfile and report.html rebuilt from the bundle's sources by the code that
// wrote them, and compared: the ledger, verdict, PFS and pfs.inputs are recomputed, never read.
#include "bundle_checks.hpp"
#include "bundle_render.hpp"

#include <r2r/report/html.hpp>

namespace r2r::report::detail {
namespace {

using nlohmann::json;

/// The first JSON pointer below `path` where `a` and `b` differ (objects compared key by key, one
/// level into pfs and costs so the message names the term).
std::string first_difference(const json& recorded, const json& rebuilt) {
  for (const auto& [key, value] : rebuilt.items()) {
    if (!recorded.contains(key)) return key;
    if (recorded[key] == value) continue;
    if ((key == "pfs" || key == "costs" || key == "workload" || key == "versions") && value.is_object() &&
        recorded[key].is_object()) {
      for (const auto& [sub, v] : value.items())
        if (!recorded[key].contains(sub) || recorded[key][sub] != v) return key + "." + sub;
      return key;
    }
    return key;
  }
  for (const auto& [key, value] : recorded.items())
    if (!rebuilt.contains(key)) return key;
  return {};
}

}  // namespace

std::vector<verifier_result> recorded_responses(const json& report) {
  std::vector<verifier_result> out;
  bool first = true;
  for (const auto& v : report["verifiers"]) {
    const std::string id = v["id"];
    json response = {{"verdict", v["verdict"]}, {"summary", v.value("summary", "")}};
    json checks = json::array(), evidence = json::array(), ledger = json::array();
    for (const auto& c : report["checks"])
      if (c["verifier"] == id)
        checks.push_back({{"name", c["name"]}, {"status", c["status"]}, {"detail", c["detail"]}});
    for (const auto& e : report["evidence"]) {
      if (e["verifier"] != id) continue;
      json item = {{"kind", e["kind"]}, {"detail", e["detail"]}, {"source", e["source"]}};
      if (e.contains("data")) item["data"] = e["data"];
      evidence.push_back(std::move(item));
    }
    for (const auto& l : report["ledger"])
      if (l.value("source", "") == "verifier:" + id)
        ledger.push_back({{"component", l["component"]}, {"level", l["level"]}, {"note", l.value("note", "")}});
    response["checks"] = checks;
    response["evidence"] = evidence;
    response["ledger"] = ledger;
    if (first && report.contains("metrics")) response["metrics"] = report["metrics"];
    const auto& executed = report["workload"]["executed"];
    if (executed.is_object() && executed.value("verifier", "") == id)
      response["workload"] = {
          {"command", executed["command"]}, {"exit_code", executed["exit_code"]}, {"seconds", executed["seconds"]}};
    out.push_back({id, v.value("version", ""), response});
    first = false;
  }
  return out;
}

core::result<double> check_rebuilt(const bundle_files& b, const std::vector<verifier_result>& responses,
                                   std::vector<std::string>& notes) {
  const auto& report = b.report;
  bundle_inputs in;
  in.plan = b.plan;
  in.patch_diff = b.patch_diff;
  in.commands_log = b.dir / "commands.log";
  in.verifiers = responses;
  in.mode = report["mode"].get<int>();
  in.repo2rocm_version = report["versions"].value("repo2rocm", "");
  for (const auto& p : report["versions"].value("plugins", json::array()))
    in.plugins.push_back({p.value("id", ""), p.value("version", "")});
  in.image_used = report["versions"]["image"].is_string() ? report["versions"]["image"].get<std::string>() : "";
  in.environment_freeze = b.environment;
  in.wall_seconds = report["costs"]["wall_seconds"].get<double>();
  auto rebuilt = build_report(in, b.trajectory);
  if (!rebuilt)
    return bundle_error(b.dir, "report.json", "cannot be rebuilt from the bundle: " + rebuilt.error().message);
  if (const auto diff = first_difference(report, *rebuilt); !diff.empty())
    return bundle_error(b.dir, "report.json",
                        diff +
                            " does not match what plan.json, trajectory.jsonl, commands.log, environment.txt and the "
                            "verifiers' responses give; the report was edited after the run");
  notes.push_back("report: verdict, ledger (" + std::to_string((*rebuilt)["ledger"].size()) +
                  " entries), PFS and its inputs recomputed from plan.json, trajectory.jsonl and the verifiers' "
                  "responses");
  std::string dockerfile;
  try {
    dockerfile = render_bundle_dockerfile(b.plan, b.trajectory, !b.patch_diff.empty());
  } catch (const json::exception& e) {
    return bundle_error(b.dir, "plan.json", std::string("cannot be rendered into a Dockerfile: ") + e.what());
  }
  if (dockerfile != b.dockerfile)
    return bundle_error(b.dir, "Dockerfile",
                        "is not the rendering of plan.json and trajectory.jsonl's installs; it was edited");
  if (render_html(report, b.trajectory, b.patch_diff) != b.html)
    return bundle_error(b.dir, "report.html", "is not the rendering of report.json; it was edited");
  notes.push_back("renderings: Dockerfile and report.html match plan.json, trajectory.jsonl and report.json");
  return (*rebuilt)["pfs"]["score"].get<double>();
}

}  // namespace r2r::report::detail
