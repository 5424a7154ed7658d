// SPDX-License-Identifier: MIT
// Parsers for nvidia-smi: --query-* --format=csv (any field set, header-only when idle) and the
// default table (GPUs and the Processes section, which may be empty).
#pragma once

#include <r2r/verify/csv_table.hpp>
#include <r2r/verify/gpu_process.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

/// Any --query-*=... --format=csv output, header names as printed ("used_gpu_memory [MiB]").
csv_table parse_nvidia_smi_query_csv(std::string_view text);
/// --query-compute-apps with any field set that has pid or process_name; header-only -> empty.
std::vector<gpu_process> parse_nvidia_smi_compute_apps(std::string_view text);

struct nvidia_gpu_row {
  int index = -1;
  std::string name;
  double memory_used_mib = 0, memory_total_mib = 0;
  std::string utilization;  // "100%"
};
struct nvidia_smi_table {
  std::string driver_version, cuda_version;
  std::vector<nvidia_gpu_row> gpus;
  std::vector<gpu_process> processes;
  bool processes_section = false;  // the "Processes:" block was present
};
nvidia_smi_table parse_nvidia_smi_table(std::string_view text);

}  // namespace r2r::plugins::verifier
