// SPDX-License-Identifier: MIT
#include <r2r/verify/csv_table.hpp>
#include <r2r/verify/rocprof.hpp>
#include <r2r/verify/text.hpp>

#include <regex>

namespace r2r::plugins::verifier {
namespace {

std::optional<long long> field_int(const std::vector<std::string>& row, std::optional<std::size_t> col) {
  if (!col) return std::nullopt;
  std::string_view v = row[*col];
  if (starts_with_ci(v, "Agent ")) v.remove_prefix(6);  // ROCm 7: "Agent 2"
  return to_int(v);
}

}  // namespace

std::vector<kernel_dispatch> parse_kernel_trace_csv(std::string_view text) {
  constexpr std::string_view tool = "rocprof kernel trace CSV";
  const csv_table t = parse_csv_table(text, tool);
  const auto name = t.column({"Kernel_Name", "KernelName"});
  if (!name) {
    throw parse_error(tool, "a Kernel_Name (rocprofv3) or KernelName (rocprof) column", excerpt(t.header.front()),
                      "Pass the *_kernel_trace.csv (rocprofv3 --kernel-trace) or results.csv (rocprof) file");
  }
  const auto agent = t.column({"Agent_Id", "gpu-id"});
  const auto queue = t.column({"Queue_Id", "queue-id"});
  const auto stream = t.column({"Stream_Id"});
  const auto pid = t.column({"pid", "Process_Id"});
  const auto start = t.column({"Start_Timestamp", "BeginNs"});
  const auto end = t.column({"End_Timestamp", "EndNs"});
  std::vector<kernel_dispatch> out;
  for (const auto& row : t.rows) {
    kernel_dispatch d;
    d.name = row[*name];
    d.agent = field_int(row, agent);
    d.queue = field_int(row, queue);
    d.stream = field_int(row, stream);
    d.pid = field_int(row, pid);
    d.start_ns = field_int(row, start).value_or(0);
    d.end_ns = field_int(row, end).value_or(0);
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<kernel_stat> parse_stats_csv(std::string_view text) {
  constexpr std::string_view tool = "rocprof statistics CSV";
  const csv_table t = parse_csv_table(text, tool);
  const auto name = t.column({"Name", "KernelName"});
  const auto calls = t.column({"Calls"});
  if (!name || !calls) {
    throw parse_error(tool, "\"Name\" and \"Calls\" columns", excerpt(t.header.front()),
                      "Pass a *_stats.csv file written by rocprof --stats or rocprofv3 --stats");
  }
  const auto total = t.column({"TotalDurationNs"});
  const auto pct = t.column({"Percentage"});
  std::vector<kernel_stat> out;
  for (const auto& row : t.rows) {
    kernel_stat s;
    s.name = row[*name];
    s.calls = to_int(row[*calls]).value_or(0);
    if (total) s.total_ns = to_double(row[*total]).value_or(0);
    if (pct) s.percent = to_double(row[*pct]).value_or(0);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<kernel_stat> parse_summary_table(std::string_view text) {
  constexpr std::string_view tool = "rocprofv3 --summary";
  static const std::regex block(R"(^ROCPROFV3 (\S+) SUMMARY:)");
  std::vector<kernel_stat> out;
  std::string domain;
  std::vector<std::string> header;
  bool any_block = false;
  for (const auto raw : split_lines(strip_source_header(text))) {
    const std::string line(trim(raw));
    std::smatch m;
    if (std::regex_search(line, m, block)) {
      domain = m[1];
      header.clear();
      any_block = true;
      continue;
    }
    if (domain.empty() || !line.starts_with("|") || line.starts_with("|-")) continue;
    std::vector<std::string> cells;
    std::string_view rest(line);
    rest.remove_prefix(1);
    while (!rest.empty()) {
      const std::size_t bar = rest.find('|');
      cells.emplace_back(trim(rest.substr(0, bar)));
      if (bar == std::string_view::npos) break;
      rest.remove_prefix(bar + 1);
    }
    if (!cells.empty() && cells.back().empty()) cells.pop_back();
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (cells.size() != header.size()) {
      throw parse_error(tool, std::to_string(header.size()) + " cells per row", excerpt(line),
                        "The summary table is cut off; capture rocprofv3 stdout in full");
    }
    kernel_stat s;
    s.domain = domain;
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == "NAME")
        s.name = cells[i];
      else if (header[i] == "CALLS")
        s.calls = to_int(cells[i]).value_or(0);
      else if (header[i].starts_with("DURATION"))
        s.total_ns = to_double(cells[i]).value_or(0);
      else if (header[i].starts_with("PERCENT"))
        s.percent = to_double(cells[i]).value_or(0);
    }
    out.push_back(std::move(s));
  }
  if (!any_block) {
    throw parse_error(tool, "a 'ROCPROFV3 <DOMAIN> SUMMARY:' block", excerpt(strip_source_header(text)),
                      "Run rocprofv3 with --summary (-S) and capture its stdout");
  }
  return out;
}

std::vector<profiler_agent> parse_agent_info_csv(std::string_view text) {
  constexpr std::string_view tool = "rocprofv3 agent_info CSV";
  const csv_table t = parse_csv_table(text, tool);
  const auto node = t.column({"Node_Id"});
  const auto type = t.column({"Agent_Type"});
  const auto name = t.column({"Name"});
  if (!node || !type || !name) {
    throw parse_error(tool, "Node_Id, Agent_Type and Name columns", excerpt(t.header.front()),
                      "Pass the *_agent_info.csv file rocprofv3 writes next to the kernel trace");
  }
  const auto product = t.column({"Product_Name"});
  std::vector<profiler_agent> out;
  for (const auto& row : t.rows) {
    out.push_back({to_int(row[*node]).value_or(-1), row[*type], row[*name], product ? row[*product] : ""});
  }
  return out;
}

rocprof_console parse_rocprof_console(std::string_view text) {
  static const std::regex on(R"(^RPL: on '[^']*' from '([^']*)')");
  static const std::regex profiling(R"(^RPL: profiling '(.*)'$)");
  static const std::regex result(R"(^RPL: result dir '([^']*)')");
  static const std::regex count(R"(^\s*(\d+) metrics$)");
  rocprof_console c;
  bool in_metrics = false, seen_rpl = false;
  for (const auto raw : split_lines(strip_source_header(text))) {
    const std::string line(raw);
    std::smatch m;
    if (std::regex_search(line, m, on))
      c.rocm_path = m[1];
    else if (std::regex_search(line, m, profiling))
      c.profiled = m[1];
    else if (std::regex_search(line, m, result))
      c.result_dir = m[1];
    else if (std::regex_search(line, m, count)) {
      c.metric_count = int_field(m[1].str(), "rocprof console", "a metric count");
      in_metrics = true;
      continue;
    } else if (in_metrics && line.starts_with("    ") && !trim(line).empty()) {
      std::string_view rest = trim(line);
      while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        c.metrics.emplace_back(trim(rest.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
      continue;
    } else if (!line.starts_with("RPL:") && !line.starts_with("ROCProfiler") && !line.starts_with("ROCPRofiler") &&
               !line.starts_with("ROCtracer") && !line.starts_with("  ") && !line.starts_with("File '") &&
               !trim(line).empty()) {
      c.program_output.push_back(line);
    }
    in_metrics = false;
    if (line.starts_with("RPL:")) seen_rpl = true;
  }
  if (!seen_rpl) {
    throw parse_error("rocprof console output", "'RPL: ...' lines of the legacy rocprof wrapper",
                      excerpt(strip_source_header(text)), "Capture the stdout of `rocprof` (v1), not of rocprofv3");
  }
  return c;
}

}  // namespace r2r::plugins::verifier
