// SPDX-License-Identifier: MIT
// The hazard rules' fixed texts: for each rule id, its severity, the GPU families it breaks on,
// why it breaks there, and the fix. The scanner adds what it found (the message and excerpt).
// Reference: ROCM.md "Device-code hazards that a mechanical CUDA->HIP rename does not fix".
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace r2r::plugins::converter {

struct hazard_rule {
  std::string_view id;
  std::string_view severity;              // error | warning | note
  std::vector<std::string_view> affects;  // cdna (wave64), rdna (wave32)
  std::string_view why;
  std::string_view fix;
};

/// Every rule, in a stable order (documented in README.md).
std::span<const hazard_rule> hazard_rules();

/// cudaDeviceProp fields that hipDeviceProp_t of HIP 5.2.3 lacks (rule device-prop-field). A test
/// compiles a check of every one against the installed HIP headers.
std::span<const std::string_view> missing_device_prop_fields();

/// The rule with this id; throws std::out_of_range for an unknown id (a bug in the scanner).
const hazard_rule& hazard_rule_by_id(std::string_view id);

}  // namespace r2r::plugins::converter
