// SPDX-License-Identifier: MIT
// The verdict's own consistency: what a pass and a fail need, whatever the verifiers said.
#include "bundle_checks.hpp"

#include <map>
#include <set>

namespace r2r::report::detail {

core::result<void> check_verdict(const bundle_files& b, std::vector<std::string>& notes) {
  const auto& report = b.report;
  const std::string verdict = report["verdict"];
  std::vector<std::string> verdicts;
  std::map<std::string, std::map<std::string, std::string>> checks;  // verifier -> name -> worst status
  std::map<std::string, std::size_t> counts;
  for (const auto& c : report["checks"]) {
    const std::string id = c["verifier"], name = c["name"], status = c["status"];
    ++counts[id];
    auto [it, fresh] = checks[id].try_emplace(name, status);
    if (!fresh && status != "pass") it->second = status;
  }
  for (const auto& v : report["verifiers"]) {
    const std::string id = v["id"], vv = v["verdict"];
    verdicts.push_back(vv);
    if (vv != "pass") continue;
    if (counts[id] == 0)
      return bundle_error(b.dir, "report.json", "verifier " + id + " passed the run but recorded no check");
    for (const auto& [name, status] : checks[id])
      if (status != "pass")
        return bundle_error(b.dir, "report.json",
                            "verifier " + id + " passed the run but its check " + name + " did not pass");
  }
  if (combine_verdicts(verdicts) != verdict)
    return bundle_error(b.dir, "report.json", "verdict does not follow from the verifiers' verdicts");
  if (verdict == "pass") {
    bool runtime = false;
    for (const auto& e : report["evidence"]) runtime = runtime || is_runtime_evidence(e["kind"]);
    if (!runtime)
      return bundle_error(b.dir, "report.json",
                          "verdict is pass without evidence of kind kernel_trace, gpu_process or probe");
    if (report["mode"].get<int>() >= 1) {
      bool complete = false;
      for (const auto& [id, by_name] : checks) {
        bool all = true;
        for (const char* name : mode1_checks) {
          const auto it = by_name.find(name);
          all = all && it != by_name.end() && it->second == "pass";
        }
        complete = complete || all;
      }
      if (!complete)
        return bundle_error(b.dir, "report.json",
                            "verdict is a Mode " + std::to_string(report["mode"].get<int>()) +
                                " pass, but no verifier passed all of Mode 1's checks (workload_exit, kernels_on_gpu, "
                                "no_cpu_fallback, accelerator_components, scale_as_planned)");
    }
  }
  if (verdict == "fail") {
    bool failed = false;
    for (const auto& c : report["checks"]) failed = failed || c["status"] != "pass";
    if (!failed) return bundle_error(b.dir, "report.json", "verdict is fail but every check passed");
  }
  notes.push_back("verdict: " + verdict + " follows from " + std::to_string(verdicts.size()) +
                  " verifier verdict(s), their checks and evidence" +
                  (verdict == "pass" && report["mode"].get<int>() >= 1 ? "; Mode 1's five checks passed" : ""));
  return {};
}

}  // namespace r2r::report::detail
