// SPDX-License-Identifier: MIT
// Mode 1 verification, shared by r2r.verifier.mode1-rocm (vendor amd) and r2r.verifier.mode1-cuda
// (vendor nvidia). The verifier runs scripts/collect.sh through the host's sandbox service: it
// checks for the device, then runs the plan's own workload command under a kernel tracer
// (rocprofv3/rocprof, AMD) with a GPU process sampler and the in-process probe
// (scripts/sitecustomize.py). evaluate_mode1() turns that output into checks; it never reads the
// agent's output and never answers "pass" without a device.
// THREADING: the host serialises calls; mode1_verifier is immutable after construction.
#pragma once

#include <r2r/verify/accelerator_components.hpp>
#include <r2r/verify/bundle.hpp>
#include <r2r/verify/rocprof.hpp>
#include <r2r/verify/torch_output.hpp>

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/verifier.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace r2r::verify {

struct mode1_config {
  std::string vendor = "amd";  // amd | nvidia
  std::string sandbox_service = "sandbox";
  double timeout_s = 3600;
  double sample_interval_s = 1;
  std::string tracer = "auto";  // auto | rocprofv3 | rocprof | none (amd only)
  bool profile = true;          // torch.profiler kernel names from the probe
  int max_trace_rows = 20000;
  int max_log_bytes = 262144;
  std::vector<std::string> custom_kernels;  // the repository's own kernel names, in addition to the plan's
  std::vector<std::string> cpu_fallback_patterns{R"(\b[Rr]unning on (the )?CPU\b)", R"(\b[Uu]sing (the )?CPU\b)",
                                                 R"(\bdevice[=:]\s*'?cpu'?)", R"(CUDA (is )?not available)",
                                                 R"(No (CUDA|HIP|ROCm) (GPUs?|devices?) (are )?available)"};
};
void from_json(const nlohmann::json& j, mode1_config& c);

/// What the plan asks to see on the GPU.
struct mode1_expectations {
  std::string command;
  bool flash_attention = false;
  std::vector<std::string> custom_kernels;  // any one of them seen counts
  bool custom_required = false;             // the plan builds a custom extension / JIT kernels
  component_plan components;                // what accelerator_components judges (per planned build)
};
/// Throws sdk::invalid_argument when the plan has no workload command.
mode1_expectations expectations_from_plan(const nlohmann::json& plan, const mode1_config& cfg);

/// The environment variables collect.sh reads (the workload command included).
std::map<std::string, std::string> collect_env(const mode1_config& cfg, const std::string& command,
                                               const std::string& nonce);
/// The collect.sh text run with `sh -c`.
const std::string& collect_script();
const std::string& probe_source();

/// Turns collect.sh output into the verifier response. `exec_timed_out` is the sandbox's flag.
sdk::verifier::verify_response evaluate_mode1(const mode1_config& cfg, const mode1_expectations& want,
                                              std::string_view output, std::string_view nonce, bool exec_timed_out);

class mode1_verifier {
 public:
  mode1_verifier(const mode1_config& cfg, const sdk::host& host);
  sdk::verifier::verify_response verify(const sdk::verifier::verify_request& request, sdk::call_context& ctx);
  static sdk::method_table<mode1_verifier> methods() { return sdk::verifier::methods<mode1_verifier>(); }

 private:
  mode1_config config_;
  sdk::host host_;
};

}  // namespace r2r::verify
