// SPDX-License-Identifier: MIT
// r2r.converter.agentic: the agentic HIP rewrite stage (after hipify). For every source file with
// hazards (scanned here with the hazards plugin's scanner, at min_severity or above) it asks the
// pipeline's `llm` service for a rewrite of the hazard regions only (region_edit.hpp, prompt.hpp),
// applies it, refuses degradations (degradation.hpp), compiles the result with hipcc for every
// target (the build check's toolchain) and feeds parse problems, refusals and compiler errors back,
// until a rewrite compiles for every target or the budget is spent: max_attempts per file, and
// max_total_tokens / max_cost_usd over the request (the llm instance's own caps also stop it).
// Hazards come from the request (files[].hazards, put there by an earlier hazard scan of the
// chain); a file without them, or whose hazards do not fit its text, is scanned here.
// A file with a harness spec beside it (`numerics.spec_suffix`) goes through the numerical gate
// once it compiles: a numerical mismatch is fed back like a compile error; an unchecked side (no
// NVIDIA GPU for the CUDA original, no ROCm device for the rewrite) is reported, never a pass.
// An accepted rewrite is in the file's diff, with one note per edit naming the hazards it fixes,
// and one build result per target saying "compiled for gfxN, numerics unchecked: no ROCm device".
// A file left unchanged says why (error diagnostic, category tool). Files without hazards pass
// through unchanged without a call. Throws sdk::unavailable when a rewrite is needed but the llm
// service or hipcc is absent.
// THREADING: the host serialises calls; the toolchain cache is only touched inside a call.
#pragma once

#include "hipcc_toolchain.hpp"
#include "numerics_gate.hpp"

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/converter.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::converter {

class agentic_converter {
 public:
  struct config {
    std::string llm_service = "llm";
    std::vector<std::string> source_extensions{".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".h", ".hpp"};
    std::string min_severity = "warning";  // note | warning | error
    std::int64_t context_lines = 6;
    std::int64_t max_attempts = 3;  // llm answers per file
    std::optional<std::int64_t> max_total_tokens;
    std::optional<double> max_cost_usd;
    std::int64_t max_tokens_per_call = 4096;
    bool allow_degradations = false;
    std::string hipcc = "hipcc";
    std::vector<std::string> search_dirs{"/opt/rocm/bin"};
    std::vector<std::string> default_arch{"gfx90a"};
    std::vector<std::string> flags{"-std=c++17", "-O1"};
    int timeout_seconds = 300;
    std::size_t max_log_bytes = 4096;
    std::size_t max_file_bytes = std::size_t{8} << 20;
    /// The numerical gate (numerics_gate.hpp) for files with a harness spec beside them.
    struct numerics_config {
      bool enabled = true;
      std::string nvcc = "nvcc";
      std::vector<std::string> search_dirs{"/usr/local/cuda/bin", "/opt/rocm/bin"};
      std::string spec_suffix = ".harness.json";  // spec of dir/name.cu is dir/name.harness.json
      int timeout_seconds = 300;
    } numerics;
  };

  /// Throws sdk::invalid_argument for a bad severity, arch or budget.
  agentic_converter(const config& cfg, const sdk::host& host);

  sdk::converter::convert_response convert(const sdk::converter::convert_request& request, sdk::call_context& ctx);

  static sdk::method_table<agentic_converter> methods() { return sdk::converter::methods<agentic_converter>(); }

 private:
  hipcc_toolchain& toolchain();
  const plugins::converter::numerics::device_tools& devices();

  config config_;
  int min_rank_;
  sdk::host host_;
  std::optional<hipcc_toolchain> toolchain_;
  std::optional<plugins::converter::numerics::device_tools> devices_;  // probed on first use
};

void from_json(const nlohmann::json& j, agentic_converter::config& c);

}  // namespace r2r::plugins::converter
