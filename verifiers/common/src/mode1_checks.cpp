// SPDX-License-Identifier: MIT
#include "mode1_evidence.hpp"

#include <r2r/verify/kernel_class.hpp>
#include <r2r/verify/text.hpp>

#include <algorithm>
#include <cstdio>
#include <regex>

namespace r2r::plugins::verifier::mode1_detail {
namespace {

namespace v = sdk::verifier;

v::check make(std::string name, bool ok, std::string detail) {
  return {std::move(name), ok ? "pass" : "fail", std::move(detail)};
}
v::check unverified(std::string name, std::string detail) {
  return {std::move(name), "not_verified", std::move(detail)};
}

std::string join(const std::vector<std::string>& v, std::size_t max = 4) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) out += (out.empty() ? "" : "; ") + v[i];
  if (v.size() > max) out += "; and " + std::to_string(v.size() - max) + " more";
  return out;
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
  return buf;
}

std::string pids_text(const std::set<long long>& pids) {
  std::string out;
  for (const auto p : pids) out += (out.empty() ? "" : ",") + std::to_string(p);
  return out;
}

bool right_runtime(const mode1_config& cfg, const probe_report& p) {
  return cfg.vendor == "amd" ? !p.hip.empty() : (!p.cuda.empty() && p.hip.empty());
}

/// Why the host-side evidence cannot decide, or "" when it can.
std::string host_gap(const mode1_evidence& ev) {
  if (!ev.host_ran)
    return "no host-side GPU sampler ran (" + (ev.host_note.empty() ? std::string("not configured") : ev.host_note) +
           "); in-process evidence (probe, tracer) cannot pass a run alone";
  if (ev.share.samples == 0)
    return "the host-side sampler took no sample during the workload's " +
           std::to_string(static_cast<long long>(ev.run.seconds)) + " s run";
  if (ev.identity.pidns.empty()) return "the collector reported no pid namespace: host pids cannot be attributed";
  return "";
}

}  // namespace

v::check check_evidence_integrity(const mode1_config&, const mode1_capture&, const mode1_evidence& ev) {
  if (!ev.forged.empty() || !ev.log_forged.empty()) {
    auto all = ev.forged;
    all.insert(all.end(), ev.log_forged.begin(), ev.log_forged.end());
    return make("evidence_integrity", false, join(all));
  }
  if (ev.have_exit && !ev.privdrop_ok)
    return unverified("evidence_integrity",
                      "the workload did not run as an unprivileged user: " +
                          (ev.privdrop.empty() ? std::string("no privdrop record") : ev.privdrop));
  if (!ev.unreadable.empty()) return unverified("evidence_integrity", join(ev.unreadable));
  return make("evidence_integrity", true,
              "fence drawn after the workload exited; workload ran as uid " +
                  std::string(split_ws(ev.privdrop).size() > 1 ? split_ws(ev.privdrop)[1] : "?") + "; " +
                  std::to_string(ev.sections.size()) + " sections, none repeated");
}

v::check check_workload_exit(const mode1_config& cfg, const mode1_capture& capture, const mode1_evidence& ev) {
  if (!ev.have_exit)
    return make("workload_exit", false,
                capture.collector.timed_out ? "the sandbox exec timed out before the workload finished"
                                            : "the collection output has no exit section (truncated or killed)");
  if (capture.collector.timed_out || ev.run.exit_code == 124 || ev.run.exit_code == 137)
    return make("workload_exit", false,
                "the workload did not finish within " + std::to_string(static_cast<long long>(cfg.timeout_s)) +
                    " s (exit " + std::to_string(ev.run.exit_code) + ")");
  return make("workload_exit", ev.run.exit_code == 0,
              "exit code " + std::to_string(ev.run.exit_code) + " after " +
                  std::to_string(static_cast<long long>(ev.run.seconds)) + " s");
}

v::check check_kernels_on_gpu(const mode1_config&, const mode1_evidence& ev) {
  // In-process evidence can fail the check: a tracer that ran and saw nothing on the GPU.
  if (ev.tracer != "none" && ev.gpu_rows == 0 && !ev.have_stats)
    return make("kernels_on_gpu", false,
                "the " + ev.tracer + " kernel tracer ran and recorded zero GPU dispatches (" +
                    std::to_string(ev.dispatch_rows) + " rows in all)");
  if (const auto gap = host_gap(ev); !gap.empty()) return unverified("kernels_on_gpu", gap);
  const auto& s = ev.share;
  if (s.attributed == 0)
    return make("kernels_on_gpu", false,
                "the host listed no process of the workload on the GPU in " + std::to_string(s.samples) + " samples (" +
                    s.source + ")");
  if (s.active == 0)
    return make("kernels_on_gpu", false,
                "the workload's host pid(s) " + pids_text(s.host_pids) +
                    " held the GPU but it was never busy for "
                    "them in " +
                    std::to_string(s.samples) + " samples (" + s.source + ")");
  std::string d = "host: pid(s) " + pids_text(s.host_pids) + " busy on the GPU in " + std::to_string(s.active) + "/" +
                  std::to_string(s.samples) + " samples, up to " +
                  std::to_string(static_cast<long long>(s.max_vram_bytes / (1 << 20))) + " MiB (" + s.source + ")";
  if (ev.gpu_rows > 0) d += "; in-process: " + std::to_string(ev.gpu_rows) + " dispatches (" + ev.tracer + ")";
  if (ev.profiled > 0) d += "; in-process: " + std::to_string(ev.profiled) + " kernels (torch.profiler)";
  return make("kernels_on_gpu", true, d);
}

v::check check_no_cpu_fallback(const mode1_config& cfg, const mode1_evidence& ev) {
  const std::string runtime = cfg.vendor == "amd" ? "HIP" : "CUDA";
  const probe_report* gpu_probe = nullptr;
  const probe_report* idle_probe = nullptr;
  for (const auto& p : ev.probes) {
    if (!p.torch_loaded) continue;
    if (!right_runtime(cfg, p))
      return make("no_cpu_fallback", false,
                  "pid " + std::to_string(p.pid) + ": torch is not a " + runtime + " build (hip=" + p.hip +
                      ", cuda=" + p.cuda + ")");
    if (!p.is_available)
      return make("no_cpu_fallback", false, "pid " + std::to_string(p.pid) + ": torch.cuda.is_available() was False");
    if (p.initialized && p.allocated_bytes() > 0) {
      if (gpu_probe == nullptr) gpu_probe = &p;
    } else if (idle_probe == nullptr) {
      idle_probe = &p;
    }
  }
  for (const auto& pat : cfg.cpu_fallback_patterns) {
    const std::regex re(pat);
    for (const auto line : split_lines(ev.run.log)) {
      const std::string l(line);
      if (std::regex_search(l, re))
        return make("no_cpu_fallback", false, "the workload log reports CPU execution: " + excerpt(l));
    }
  }
  if (gpu_probe == nullptr && idle_probe != nullptr)
    return make("no_cpu_fallback", false,
                "pid " + std::to_string(idle_probe->pid) + " loaded " + runtime +
                    " torch but allocated nothing on the GPU, and no torch process of the workload did");
  if (const auto gap = host_gap(ev); !gap.empty()) return unverified("no_cpu_fallback", gap);
  const auto& s = ev.share;
  const std::string measured = percent(s.share) + " of the workload's run (" + std::to_string(s.active) + "/" +
                               std::to_string(s.samples) + " host samples, " + s.source + ")";
  if (s.share < cfg.min_gpu_share)
    return make("no_cpu_fallback", false,
                "the GPU was busy for the workload in " + measured + ", below the required " +
                    percent(cfg.min_gpu_share) + ": the work ran elsewhere");
  return make("no_cpu_fallback", true,
              "the GPU was busy for the workload in " + measured +
                  (gpu_probe != nullptr
                       ? "; pid " + std::to_string(gpu_probe->pid) + " ran " + runtime + " torch on " +
                             (gpu_probe->devices.empty() ? std::string("the GPU") : gpu_probe->devices.front().name)
                       : std::string()));
}

v::check check_accelerator_components(const mode1_expectations& want, const mode1_evidence& ev,
                                      std::vector<v::ledger_entry>& ledger, std::vector<v::evidence_item>& evidence) {
  std::map<kernel_family, long long> families;
  for (const auto& [name, count] : ev.kernels) families[classify_kernel(name, want.custom_kernels)] += count;
  nlohmann::json fam = nlohmann::json::object();
  for (const auto& [f, c] : families) fam[std::string(to_string(f))] = c;
  if (!families.empty()) evidence.push_back({"kernel_families", fam.dump(), "kernel name classifier", fam});
  std::vector<dispatched_kernel> ran;
  for (const auto& [name, count] : ev.kernels) ran.push_back({name, count, ""});
  std::vector<loaded_code> code;
  for (const auto& s : ev.sections) {
    if (s.name != "probe") continue;
    try {
      code.push_back(parse_probe_code(s.body));
    } catch (const parse_error& e) {
      return unverified("accelerator_components", std::string("a probe record is unreadable: ") + e.what());
    }
  }
  auto verdict = r2r::plugins::verifier::check_accelerator_components(
      want.components, ran, code, !ev.kernels.empty(), ev.mapped, host_code_gap(ev.mapped, ev.share.host_pids));
  if (ev.kernels.empty() && !ev.profiler.empty() && verdict.check.status == "not_verified")
    verdict.check.detail += " (torch.profiler " + ev.profiler + ")";
  ledger.insert(ledger.end(), verdict.ledger.begin(), verdict.ledger.end());
  if (!verdict.evidence.empty())
    evidence.push_back({"accelerator_components",
                        std::to_string(verdict.evidence.size()) + " planned component(s) judged", "plan kernel_builds",
                        verdict.evidence});
  return verdict.check;
}

v::check check_scale_as_planned(const mode1_expectations& want, const mode1_capture& capture) {
  const bool read = want.scale_files.empty() || (capture.scale_read.ran && capture.scale_read.ok);
  return r2r::plugins::verifier::check_scale_as_planned(want.command, want.scale_files, capture.scale_read.files, read,
                                                        capture.ledger);
}

}  // namespace r2r::plugins::verifier::mode1_detail
