// SPDX-License-Identifier: MIT
// Parsers for amd-smi output: `process` (text, --csv, the ROCm 7 default-view "Processes:" box and
// the "PROCESS INFO:" table of `monitor --process`), `list`, `monitor`, `static` (text), `version`.
#pragma once

#include <r2r/verify/gpu_process.hpp>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace r2r::plugins::verifier {

/// Detects the form. A NAME of N/A (no render/video group) gives an empty name. Throws
/// parse_error when no process section is found; a section with no rows gives an empty list.
std::vector<gpu_process> parse_amd_smi_process(std::string_view text);

struct amd_gpu_entry {
  int gpu = -1;
  std::string bdf, uuid;
};
std::vector<amd_gpu_entry> parse_amd_smi_list(std::string_view text);

/// `amd-smi monitor` tables: one map per GPU row, header -> cell ("182 W", "83 %", "N/A").
std::vector<std::map<std::string, std::string>> parse_amd_smi_monitor(std::string_view text);

/// Indented "KEY: value" text (amd-smi static/list/process): ("GPU 0/ASIC/MARKET_NAME", "MI300X-O").
std::vector<std::pair<std::string, std::string>> parse_amd_smi_key_values(std::string_view text);

struct amd_smi_version {
  std::string tool, library, rocm;
  std::vector<std::string> errors;  // "ERROR:..." lines printed before the version line
};
amd_smi_version parse_amd_smi_version(std::string_view text);

}  // namespace r2r::plugins::verifier
