// SPDX-License-Identifier: MIT
#include <r2r/verify/nvidia_smi.hpp>
#include <r2r/verify/text.hpp>

#include <regex>

namespace r2r::plugins::verifier {

csv_table parse_nvidia_smi_query_csv(std::string_view text) {
  return parse_csv_table(strip_source_header(text), "nvidia-smi --format=csv");
}

std::vector<gpu_process> parse_nvidia_smi_compute_apps(std::string_view text) {
  const csv_table t = parse_nvidia_smi_query_csv(text);
  const auto pid = t.column({"pid"});
  const auto name = t.column({"process_name", "name"});
  if (!pid && !name) {
    throw parse_error("nvidia-smi --query-compute-apps", "a pid or process_name column", excerpt(t.header.front()),
                      "Query with --query-compute-apps=pid,process_name,used_memory --format=csv");
  }
  const auto gpu = t.column({"gpu_uuid", "gpu_bus_id", "gpu_name"});
  std::optional<std::size_t> mem;
  for (std::size_t i = 0; i < t.header.size(); ++i)
    if (t.header[i].starts_with("used_gpu_memory") || t.header[i].starts_with("used_memory")) mem = i;
  std::vector<gpu_process> out;
  for (const auto& row : t.rows) {
    gpu_process p;
    if (pid) p.pid = to_int(row[*pid]).value_or(-1);
    if (name) p.name = row[*name] == "[N/A]" ? "" : row[*name];
    if (gpu) p.gpu = row[*gpu];
    if (mem) p.vram_bytes = to_bytes(row[*mem]);
    out.push_back(std::move(p));
  }
  return out;
}

nvidia_smi_table parse_nvidia_smi_table(std::string_view text) {
  static const std::regex versions(R"(Driver Version:\s*(\S+)\s+CUDA Version:\s*(\S+))");
  static const std::regex gpu_row(R"(^\|\s+(\d+)\s+(.+?)\s+(On|Off)\s+\|)");
  static const std::regex mem_row(R"((\d+)MiB\s*/\s*(\d+)MiB\s*\|\s*(\d+%))");
  static const std::regex proc_row(R"(^\|\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\S+)\s+(.+?)\s+(\d+MiB|N/A)\s*\|$)");
  nvidia_smi_table t;
  bool in_processes = false;
  for (const auto raw : split_lines(strip_source_header(text))) {
    const std::string line(raw);
    std::smatch m;
    if (std::regex_search(line, m, versions)) {
      t.driver_version = m[1];
      t.cuda_version = m[2];
    } else if (line.find("| Processes:") != std::string::npos) {
      in_processes = t.processes_section = true;
    } else if (in_processes && std::regex_match(line, m, proc_row)) {
      gpu_process p;
      p.gpu = m[1];
      const auto pid = to_int(m[4].str());
      if (!pid) throw parse_error("nvidia-smi", "a process id", excerpt(line), "Capture `nvidia-smi` again");
      p.pid = *pid;
      p.name = m[6];
      p.vram_bytes = to_bytes(m[7].str());
      t.processes.push_back(std::move(p));
    } else if (!in_processes && std::regex_search(line, m, gpu_row)) {
      nvidia_gpu_row g;
      g.index = int_field(m[1].str(), "nvidia-smi", "a GPU index");
      g.name = m[2];
      t.gpus.push_back(std::move(g));
    } else if (!in_processes && !t.gpus.empty() && std::regex_search(line, m, mem_row)) {
      t.gpus.back().memory_used_mib = to_double(m[1].str()).value_or(0);  // digits: always a number
      t.gpus.back().memory_total_mib = to_double(m[2].str()).value_or(0);
      t.gpus.back().utilization = m[3];
    }
  }
  if (t.driver_version.empty()) {
    throw parse_error("nvidia-smi", "the 'Driver Version: ... CUDA Version: ...' banner",
                      excerpt(strip_source_header(text)), "Run plain `nvidia-smi` and capture stdout");
  }
  return t;
}

}  // namespace r2r::plugins::verifier
