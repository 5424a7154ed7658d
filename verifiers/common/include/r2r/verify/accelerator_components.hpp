// SPDX-License-Identifier: MIT
// The `accelerator_components` check of Mode 1: every kernel build the plan names must show at
// least one of its own kernels dispatched on the GPU, attributed to that build's code. Names and
// the probe's / tracer's code records are in-process evidence: they can fail a build (its kernels
// never ran, or ran from another code object) or add detail, never pass it. Passing needs the
// host's record (host_objects.hpp): a process of the workload that the host saw on the GPU mapped
// the build's shared object (for Triton builds: the probe's record that the planned file's
// function was compiled, plus Triton's runtime mapped in such a process). Flash attention is
// recognised by its library (the flash_attn package's extension or Triton code, confirmed by the
// host the same way), so attention kernels from PyTorch's own SDPA (aotriton/CK inside libtorch)
// are charged D2. Pure functions over parsed evidence; no I/O.
#pragma once

#include <r2r/verify/host_objects.hpp>

#include <r2r/sdk/kinds/verifier.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

/// One plan kernel_builds entry that compiles the repository's own device code.
struct planned_build {
  std::string kind;    // setup_extension | jit | triton | configured
  std::string name;    // as the plan names it
  std::string module;  // the Python module that loads it (extension module, JIT name, Triton file's module)
  std::string file;    // the file that declares it (the Triton file for triton builds)
  std::vector<std::string> kernels;  // __global__ / @triton.jit names the planner found
};

struct component_plan {
  bool flash_attention = false;       // the plan uses flash-attn (a package build or a hazard)
  std::vector<planned_build> builds;  // setup_extension, jit and triton builds, in plan order
};
/// `configured_kernels` (mode1_config.custom_kernels) become one more build with no module: their
/// absence fails the check, their presence cannot pass it (nothing attributes them).
component_plan components_from_plan(const nlohmann::json& plan, const std::vector<std::string>& configured_kernels);

/// A kernel seen on the GPU: its name, how many dispatches, and the code object that held it when
/// the tracer recorded one (a URI such as file:///…/_C.cpython-310-x86_64-linux-gnu.so#offset=…).
struct dispatched_kernel {
  std::string name;
  long long count = 0;
  std::string code_object;
};

/// What the probe saw loaded in one Python process of the workload (the "code" object of probe-*.json).
struct loaded_code {
  struct extension {
    std::string module, file;  // sys.modules entries backed by a shared object
  };
  struct triton_function {
    std::string name, module, file;
    std::optional<bool> compiled;  // nullopt: this Triton version does not say
  };
  std::vector<extension> extensions;
  std::vector<triton_function> triton;
  std::vector<std::string> objects;  // shared objects mapped into the process (/proc/self/maps)
  bool present = false;              // the probe wrote a "code" object
};
/// Reads the "code" object of a probe JSON document; an absent one gives present == false.
/// Throws parse_error on a malformed one.
loaded_code parse_probe_code(std::string_view probe_json);

struct component_verdict {
  sdk::verifier::check check;
  std::vector<sdk::verifier::ledger_entry> ledger;
  nlohmann::json evidence;  // per build: kernels seen, attribution
};

/// `kernels_recorded` is false when neither a tracer nor the profiler recorded kernel names.
/// `host` holds the objects the workload's GPU processes mapped (host-side); `host_gap` says why
/// it cannot attribute anything ("" when it can) and is quoted in not_verified details.
component_verdict check_accelerator_components(const component_plan& plan,
                                               const std::vector<dispatched_kernel>& kernels,
                                               const std::vector<loaded_code>& code, bool kernels_recorded,
                                               const host_code& host, const std::string& host_gap);

}  // namespace r2r::plugins::verifier
