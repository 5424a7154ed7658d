// SPDX-License-Identifier: MIT
// The numerical gate: runs a kernel's CUDA original on an NVIDIA GPU and its HIP rewrite on a ROCm
// device, on the same deterministic inputs (driver_generator.hpp), and compares the outputs
// (output_compare.hpp). Each side only runs where its device is: without nvcc and an NVIDIA GPU the
// reference is "reference not run: no NVIDIA GPU"; without a ROCm device the rewrite is only
// compiled ("compiled for gfxN, numerics unchecked: no ROCm device"). The verdict is "pass" only
// when both sides ran and every output matched: an unchecked side is never a pass.
// THREADING: run_gate may be called from any thread; it only touches `scratch`.
#pragma once

#include "output_compare.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::converter::numerics {

/// What this machine can run. Probed once (probe_devices), or set by a caller that knows.
struct device_tools {
  std::optional<std::string> nvcc;   // absolute path
  bool nvidia_gpu = false;           // `nvidia-smi -L` lists a GPU
  std::optional<std::string> hipcc;  // absolute path
  bool rocm_device = false;          // /dev/kfd exists and rocminfo lists a gfx agent
};

/// Looks for nvcc and hipcc (names or paths; `dirs` first, then $PATH) and for the two devices.
device_tools probe_devices(const std::string& nvcc, const std::string& hipcc, const std::vector<std::string>& dirs);

struct gate_input {
  std::string original_name;  // file name of the CUDA original (e.g. "kernel.cu")
  std::string original_text;  // empty: no CUDA original is known
  std::string rewritten_name;
  std::string rewritten_text;
  nlohmann::json spec;             // the harness spec (kernel_harness.hpp)
  std::vector<std::string> archs;  // gfx targets the rewrite is built for
  std::vector<std::string> include_dirs;
};

struct gate_result {
  std::string reference;               // what happened to the CUDA original
  std::vector<std::string> candidate;  // per arch: what happened to the HIP rewrite
  std::optional<comparison> compared;  // when both outputs exist
  std::string verdict;                 // "pass" | "fail" | "unchecked"
  /// "numerics: VERDICT; reference: ...; rewrite: ...; comparison: ..." on one line.
  std::string summary() const;
};

/// Decides the verdict from whatever outputs exist (nullopt: that side did not run).
gate_result decide(std::string reference_status, const std::optional<nlohmann::json>& reference,
                   std::vector<std::string> candidate_status, const std::optional<nlohmann::json>& candidate,
                   const nlohmann::json& tolerance);

/// Builds and runs both sides in `scratch` (an existing private directory). A driver that cannot
/// be generated (bad spec or signature) throws std::invalid_argument; tool failures are reported in
/// the result (e.g. "reference failed: nvcc: ..."), never thrown. `cancelled` may be empty.
gate_result run_gate(const gate_input& in, const device_tools& tools, const std::filesystem::path& scratch,
                     std::chrono::seconds timeout, const std::function<bool()>& cancelled);

}  // namespace r2r::plugins::converter::numerics
