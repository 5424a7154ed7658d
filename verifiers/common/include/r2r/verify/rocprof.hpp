// SPDX-License-Identifier: MIT
// Parsers for ROCm profiler output: rocprofv3 --kernel-trace CSV (with or without Stream_Id,
// numeric or "Agent N" Agent_Id), legacy rocprof results.csv (hsa/hip trace), kernel statistics
// CSV (rocprof --stats, rocprofv3 --stats), the rocprofv3 --summary table, rocprofv3 agent_info
// CSV and legacy rocprof console output. Pure functions; parse_error on unreadable input.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::plugins::verifier {

struct kernel_dispatch {
  std::string name;
  std::optional<long long> agent;  // rocprofv3 Agent_Id / rocprof gpu-id
  std::optional<long long> queue;
  std::optional<long long> stream;  // rocprofv3 layouts with Stream_Id
  std::optional<long long> pid;     // legacy results.csv
  long long start_ns = 0;
  long long end_ns = 0;
};
std::vector<kernel_dispatch> parse_kernel_trace_csv(std::string_view text);

struct kernel_stat {
  std::string name;
  long long calls = 0;
  double total_ns = 0;
  double percent = 0;
  std::string domain;  // summary tables: KERNEL_DISPATCH, MEMORY_COPY, ...; empty for stats CSV
};
/// "Name","Calls","TotalDurationNs",... (kernel_stats.csv, results.stats.csv, hip_stats.csv).
std::vector<kernel_stat> parse_stats_csv(std::string_view text);
/// The "ROCPROFV3 <DOMAIN> SUMMARY:" tables rocprofv3 --summary prints; every row of every block.
std::vector<kernel_stat> parse_summary_table(std::string_view text);

struct profiler_agent {
  long long node_id = -1;
  std::string type;  // CPU | GPU
  std::string name;  // gfx942 for GPUs
  std::string product;
};
std::vector<profiler_agent> parse_agent_info_csv(std::string_view text);

struct rocprof_console {
  std::string rocm_path;             // "RPL: on '<ts>' from '<path>'"
  std::string profiled;              // "RPL: profiling '<command>'"
  std::string result_dir;            // "RPL: result dir '<dir>'"
  std::vector<std::string> metrics;  // names listed under "N metrics"
  int metric_count = -1;
  std::vector<std::string> program_output;  // lines that are not the profiler's own
};
rocprof_console parse_rocprof_console(std::string_view text);

}  // namespace r2r::plugins::verifier
