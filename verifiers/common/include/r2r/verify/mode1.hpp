// SPDX-License-Identifier: MIT
// Mode 1 verification, shared by r2r.verifier.mode1-rocm (vendor amd) and r2r.verifier.mode1-cuda
// (vendor nvidia). verify = collect + judge. Collect: the verifier runs scripts/collect.sh through
// the host's sandbox service (the collector, root in the sandbox, runs the plan's workload command
// as an unprivileged uid under a kernel tracer with the in-process probe) while host_sampler
// watches the GPU from outside the sandbox; the result is a mode1_capture (capture.hpp). Judge:
// judge_mode1() decides the verdict from a capture alone, so a stored capture can be re-judged.
// TRUST: only out-of-process evidence (the host sampler, the collector's own records) can make a
// check pass; in-process evidence (probe, tracer files) can fail a check or add detail. It never
// reads the agent's output and never answers "pass" without a device.
// THREADING: the host serialises calls; mode1_verifier is immutable after construction.
#pragma once

#include <r2r/verify/accelerator_components.hpp>
#include <r2r/verify/bundle.hpp>
#include <r2r/verify/capture.hpp>
#include <r2r/verify/gpu_share.hpp>
#include <r2r/verify/rocprof.hpp>
#include <r2r/verify/scale_as_planned.hpp>
#include <r2r/verify/torch_output.hpp>

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/verifier.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace r2r::plugins::verifier {

struct mode1_config {
  std::string vendor = "amd";  // amd | nvidia
  std::string sandbox_service = "sandbox";
  double timeout_s = 3600;
  double sample_interval_s = 1;
  std::string tracer = "auto";  // auto | rocprofv3 | rocprof | none (amd only)
  // torch.profiler kernel names from the probe: "auto" runs it only when the plan names
  // accelerator-critical kernels (builds, flash attention, custom_kernels) and no kernel tracer
  // runs (NVIDIA; AMD without rocprofv3/rocprof); "on" / "off" force it (JSON true / false too).
  std::string profile = "auto";
  int max_trace_rows = 20000;
  int max_log_bytes = 262144;
  std::vector<std::string> custom_kernels;  // the repository's own kernel names, in addition to the plan's
  std::vector<std::string> cpu_fallback_patterns{R"(\b[Rr]unning on (the )?CPU\b)", R"(\b[Uu]sing (the )?CPU\b)",
                                                 R"(\bdevice[=:]\s*'?cpu'?)", R"(CUDA (is )?not available)",
                                                 R"(No (CUDA|HIP|ROCm) (GPUs?|devices?) (are )?available)"};
  int workload_uid = 65534;     // the uid collect.sh runs the workload as
  double min_gpu_share = 0.05;  // the GPU must be busy for the workload in this share of its run
  bool host_sampler = true;     // sample the GPU from the verifier's host (required for "pass")
  bool host_pmon = true;        // nvidia-smi pmon per-process SM utilisation
  std::vector<std::string> host_tool_dirs{"/usr/bin", "/usr/local/nvidia/bin", "/usr/local/bin", "/opt/rocm/bin",
                                          "/bin"};
};
void from_json(const nlohmann::json& j, mode1_config& c);

/// What the plan asks to see on the GPU.
struct mode1_expectations {
  std::string command;
  bool flash_attention = false;
  std::vector<std::string> custom_kernels;      // any one of them seen counts
  bool custom_required = false;                 // the plan builds a custom extension / JIT kernels
  component_plan components;                    // what accelerator_components judges (per planned build)
  std::vector<planned_scale_file> scale_files;  // what scale_as_planned compares (plan.scale.files)
};
/// Throws sdk::invalid_argument when the plan has no workload command.
mode1_expectations expectations_from_plan(const nlohmann::json& plan, const mode1_config& cfg);

/// Whether the plan asks accelerator_components to find kernel names (what profile "auto" reads).
bool kernel_names_needed(const mode1_expectations& want);

/// The environment variables collect.sh reads (the workload command included). None is secret:
/// the workload inherits them. `names_needed`: kernel_names_needed() of the plan.
std::map<std::string, std::string> collect_env(const mode1_config& cfg, const std::string& command,
                                               bool names_needed = true);
/// The collect.sh text run with `sh -c`.
const std::string& collect_script();
const std::string& probe_source();

/// The verdict from a capture alone; runs nothing. Never throws on a malformed collector output
/// (that is a failed or not_verified check); the capture itself must already be parsed.
sdk::verifier::verify_response judge_mode1(const mode1_config& cfg, const mode1_expectations& want,
                                           const mode1_capture& capture);

class mode1_verifier {
 public:
  mode1_verifier(const mode1_config& cfg, const sdk::host& host);
  sdk::verifier::verify_response verify(const sdk::verifier::verify_request& request, sdk::call_context& ctx);
  /// judge_mode1 on request.capture. Throws sdk::invalid_argument on a malformed capture; a capture
  /// of the other vendor is verdict "error".
  sdk::verifier::verify_response judge(const sdk::verifier::judge_request& request, sdk::call_context& ctx);
  static sdk::method_table<mode1_verifier> methods() { return sdk::verifier::methods<mode1_verifier>(); }

 private:
  mode1_config config_;
  sdk::host host_;
};

}  // namespace r2r::plugins::verifier
