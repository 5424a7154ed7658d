// SPDX-License-Identifier: MIT
// Parser for rocminfo output: the HSA agents (CPU and GPU), with their Name (gfx target for
// GPUs), Marketing Name, Device Type and Compute Unit count. Tolerates ANSI colour codes,
// trailing padding, excerpts, and grep'd lines flattened onto one line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

struct hsa_agent {
  int number = -1;  // "Agent N"; -1 when the output had no agent headings (grep'd lines)
  std::string name;
  std::string marketing_name;
  std::string device_type;  // CPU | GPU (inferred from a gfx name when the line is missing)
  int compute_units = -1;
  std::string uuid;
  bool is_gpu() const { return device_type == "GPU"; }
};

struct rocminfo_report {
  bool rock_loaded = false;  // "ROCk module ... is loaded"
  std::vector<hsa_agent> agents;
  std::vector<hsa_agent> gpus() const;
};

/// Throws parse_error when the text holds no agent name (not rocminfo output, or rocminfo
/// failed: the caller should treat that as "no ROCm device").
rocminfo_report parse_rocminfo(std::string_view text);

}  // namespace r2r::plugins::verifier
