// SPDX-License-Identifier: MIT
// Private to r2r_verify: the Mode 1 capture read into facts (read_evidence) and one function per
// check over those facts. Each check function returns its check and never throws; judge_mode1
// (mode1.cpp) orders them and derives the verdict.
#pragma once

#include <r2r/verify/bundle.hpp>
#include <r2r/verify/capture.hpp>
#include <r2r/verify/gpu_share.hpp>
#include <r2r/verify/host_objects.hpp>
#include <r2r/verify/mode1.hpp>
#include <r2r/verify/rocprof.hpp>
#include <r2r/verify/torch_output.hpp>

#include <r2r/sdk/kinds/verifier.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace r2r::plugins::verifier::mode1_detail {

struct mode1_evidence {
  std::string fence;
  std::vector<bundle_section> sections;
  std::vector<std::string> forged;      // the output's structure is not the collector's: decides nothing else
  std::vector<std::string> log_forged;  // marker lines the workload printed into its own log
  std::vector<std::string> unreadable;  // truncated or unparseable evidence: cannot decide
  bool privdrop_ok = false;
  std::string privdrop;  // the collector's privdrop line
  sdk::verifier::workload_run run;
  bool have_exit = false;
  long long root_pid = -1;
  double t0 = 0, t1 = 0;  // workload start / end, unix seconds (collector clock)
  std::string tracer = "none";
  std::string profiler;  // the collector's "on: why" / "off: why" ("" in captures before it said)
  long long dispatch_rows = 0, gpu_rows = 0;
  bool have_stats = false;
  std::map<std::string, long long> kernels;  // in-process kernel names (tracer, profiler) -> count
  long long profiled = 0;
  std::vector<probe_report> probes;
  workload_identity identity;
  std::set<long long> sandbox_listed;  // workload pids the collector's in-sandbox sampler listed
  std::string sandbox_tool;
  int sandbox_samples = 0;
  gpu_share share;
  host_code mapped;  // what the workload's GPU processes mapped, host-side
  bool host_ran = false;
  std::string host_note;
};

mode1_evidence read_evidence(const mode1_config& cfg, const mode1_capture& capture);

sdk::verifier::check check_evidence_integrity(const mode1_config& cfg, const mode1_capture& capture,
                                              const mode1_evidence& ev);
sdk::verifier::check check_workload_exit(const mode1_config& cfg, const mode1_capture& capture,
                                         const mode1_evidence& ev);
sdk::verifier::check check_kernels_on_gpu(const mode1_config& cfg, const mode1_evidence& ev);
sdk::verifier::check check_no_cpu_fallback(const mode1_config& cfg, const mode1_evidence& ev);
sdk::verifier::check check_accelerator_components(const mode1_expectations& want, const mode1_evidence& ev,
                                                  std::vector<sdk::verifier::ledger_entry>& ledger,
                                                  std::vector<sdk::verifier::evidence_item>& evidence);
sdk::verifier::check check_scale_as_planned(const mode1_expectations& want, const mode1_capture& capture);

}  // namespace r2r::plugins::verifier::mode1_detail
