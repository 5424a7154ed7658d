// SPDX-License-Identifier: MIT
#include <r2r/verify/amd_smi.hpp>
#include <r2r/verify/csv_table.hpp>
#include <r2r/verify/text.hpp>

#include <regex>

namespace r2r::plugins::verifier {
namespace {

constexpr std::string_view process_tool = "amd-smi process";

std::string known_name(std::string_view n) {
  return (n == "N/A" || n == "UNKNOWN") ? std::string() : std::string(n);
}

bool is_unit(std::string_view t) {
  static const char* units[] = {"W", "%", "MHz", "GB", "MB", "KB", "B", "ns", "EB", "TB", "\u00B0C", "C"};
  for (const char* u : units)
    if (t == u) return true;
  return false;
}

/// Whitespace tokens with a trailing unit token joined to its number ("182", "W" -> "182 W").
std::vector<std::string> cells(std::string_view line) {
  std::vector<std::string> out;
  for (const auto tok : split_ws(line)) {
    if (!out.empty() && is_unit(tok) && out.back() != "N/A")
      out.back() += " " + std::string(tok);
    else
      out.emplace_back(tok);
  }
  return out;
}

/// A header + rows table (monitor, "PROCESS INFO:", the box without its bars), rows as maps.
std::vector<std::map<std::string, std::string>> table_rows(const std::vector<std::string_view>& lines, std::size_t at,
                                                           std::string_view tool) {
  std::vector<std::map<std::string, std::string>> rows;
  const auto header = split_ws(lines[at]);
  for (std::size_t i = at + 1; i < lines.size(); ++i) {
    const std::string_view line = trim(lines[i]);
    if (line.empty() || line.starts_with("=") || line.starts_with("+")) break;
    const auto c = cells(line);
    if (c.size() != header.size()) {
      throw parse_error(tool, std::to_string(header.size()) + " cells as in the header", excerpt(line),
                        "The table row is cut off or wrapped; capture the output again with a wider terminal");
    }
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < header.size(); ++k) row[std::string(header[k])] = c[k];
    rows.push_back(std::move(row));
  }
  return rows;
}

/// A row's column; a row without it is a parse_error (rows shorter than their header do occur in
/// cut output), never std::out_of_range.
const std::string& column(const std::map<std::string, std::string>& r, const std::string& key) {
  const auto it = r.find(key);
  if (it == r.end())
    throw parse_error("amd-smi process", "a " + key + " column in every process row", "a row without it",
                      "Capture the whole output of `amd-smi process --csv` (or the table form)");
  return it->second;
}

gpu_process from_row(const std::map<std::string, std::string>& r, std::string_view name_key,
                     std::string_view vram_key) {
  gpu_process p;
  p.pid = to_int(column(r, "PID")).value_or(-1);
  p.name = known_name(column(r, std::string(name_key)));
  p.gpu = column(r, "GPU");
  if (auto it = r.find(std::string(vram_key)); it != r.end()) p.vram_bytes = to_bytes(it->second);
  return p;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_amd_smi_key_values(std::string_view text) {
  static const std::regex kv(R"(^( *)([A-Za-z0-9_ ]+):\s*(.*?)\s*$)");
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::pair<std::size_t, std::string>> stack;  // (indent, name)
  for (const auto raw : split_lines(strip_source_header(text))) {
    const std::string line(raw);
    std::smatch m;
    if (!std::regex_match(line, m, kv)) continue;
    const std::size_t indent = m[1].length();
    while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
    std::string key = m[2];
    const std::string value = m[3];
    if (indent == 0 && key == "GPU") {
      stack.push_back({indent, "GPU " + value});
      continue;
    }
    std::string path;
    for (const auto& [_, name] : stack) path += name + "/";
    if (value.empty()) {
      stack.push_back({indent, key});
    } else {
      out.emplace_back(path + key, value);
    }
  }
  return out;
}

std::vector<gpu_process> parse_amd_smi_process(std::string_view text) {
  const std::string clean = strip_ansi(strip_source_header(text));
  const auto lines = split_lines(clean);
  std::vector<gpu_process> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = trim(lines[i]);
    if (line.starts_with("gpu,") && line.find(",pid") != std::string_view::npos) {  // --csv
      const csv_table t =
          parse_csv_table(clean.substr(static_cast<std::size_t>(line.data() - clean.data())), process_tool);
      const auto gpu = t.column({"gpu"}), name = t.column({"name"}), pid = t.column({"pid"});
      const auto vram = t.column({"vram_mem"});
      for (const auto& row : t.rows) {
        gpu_process p;
        p.pid = to_int(row[*pid]).value_or(-1);
        p.name = known_name(row[*name]);
        p.gpu = gpu ? row[*gpu] : "";
        if (vram) {
          if (const auto v = to_double(row[*vram]))
            p.vram_bytes = *v;
          else
            p.vram_bytes = to_bytes(row[*vram]);
        }
        out.push_back(std::move(p));
      }
      return out;
    }
    if (line.starts_with("| Processes:")) {  // ROCm 7 default view
      std::vector<std::string_view> inner;
      for (std::size_t k = i + 1; k < lines.size(); ++k) {
        std::string_view l = trim(lines[k]);
        if (l.starts_with("+")) break;
        if (l.starts_with("|=")) continue;
        if (l.starts_with("|")) l.remove_prefix(1);
        if (l.ends_with("|")) l.remove_suffix(1);
        inner.push_back(l);
      }
      if (inner.empty()) return out;
      // "Process Name" and "CU %" are two-word headers: normalise before splitting.
      std::string header(inner[0]);
      for (const auto& [from, to] : {std::pair<std::string, std::string>{"Process Name", "NAME"}, {"CU %", "CU%"}}) {
        if (const auto at = header.find(from); at != std::string::npos) header.replace(at, from.size(), to);
      }
      std::vector<std::string_view> rows{header};
      rows.insert(rows.end(), inner.begin() + 1, inner.end());
      for (const auto& r : table_rows(rows, 0, process_tool)) out.push_back(from_row(r, "NAME", "VRAM_MEM"));
      return out;
    }
    if (line.starts_with("PROCESS INFO:") && i + 1 < lines.size()) {  // monitor --process
      for (const auto& r : table_rows(lines, i + 1, process_tool)) out.push_back(from_row(r, "NAME", "VRAM_MEM"));
      return out;
    }
  }
  // Text form: GPU: n / PROCESS_INFO: / NAME: / PID: / MEMORY_USAGE: / VRAM_MEM: ...
  bool seen = false;
  gpu_process* cur = nullptr;
  std::string gpu;
  static const std::regex kv(R"(^\s*([A-Z_]+):\s*(.*?)\s*$)");
  for (const auto raw : lines) {
    const std::string l(raw);
    std::smatch m;
    if (!std::regex_match(l, m, kv)) continue;
    const std::string key = m[1], value = m[2];
    if (key == "GPU" && !l.starts_with(" "))
      gpu = value;
    else if (key == "PROCESS_INFO") {
      seen = true;
      if (value == "No running processes detected") continue;
      out.push_back(gpu_process{});
      cur = &out.back();
      cur->gpu = gpu;
    } else if (cur != nullptr && key == "NAME")
      cur->name = known_name(value);
    else if (cur != nullptr && key == "PID")
      cur->pid = to_int(value).value_or(-1);
    else if (cur != nullptr && key == "VRAM_MEM")
      cur->vram_bytes = to_bytes(value);
  }
  if (!seen) {
    throw parse_error(process_tool, "a PROCESS_INFO section, a --csv table or a 'Processes:' box",
                      excerpt(strip_source_header(text)),
                      "Run `amd-smi process` (optionally --csv) and capture stdout");
  }
  return out;
}

std::vector<amd_gpu_entry> parse_amd_smi_list(std::string_view text) {
  std::vector<amd_gpu_entry> out;
  for (const auto& [key, value] : parse_amd_smi_key_values(text)) {
    const std::size_t slash = key.find('/');
    if (slash == std::string::npos || !key.starts_with("GPU ")) continue;
    const int gpu = static_cast<int>(to_int(key.substr(4, slash - 4)).value_or(-1));
    if (out.empty() || out.back().gpu != gpu) out.push_back({gpu, "", ""});
    const std::string field = key.substr(slash + 1);
    if (field == "BDF")
      out.back().bdf = value;
    else if (field == "UUID")
      out.back().uuid = value;
  }
  if (out.empty()) {
    throw parse_error("amd-smi list", "'GPU: n' blocks with BDF and UUID", excerpt(strip_source_header(text)),
                      "Run `amd-smi list` and capture stdout");
  }
  return out;
}

std::vector<std::map<std::string, std::string>> parse_amd_smi_monitor(std::string_view text) {
  const std::string clean(strip_source_header(text));
  const auto lines = split_lines(clean);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto f = split_ws(lines[i]);
    if (!f.empty() && f[0] == "GPU" && f.size() > 2) return table_rows(lines, i, "amd-smi monitor");
  }
  throw parse_error("amd-smi monitor", "a header line starting with GPU", excerpt(clean),
                    "Run `amd-smi monitor` and capture stdout");
}

amd_smi_version parse_amd_smi_version(std::string_view text) {
  static const std::regex ver(
      R"(AMDSMI Tool:\s*([^|]+?)\s*\|\s*AMDSMI Library version:\s*([^|]+?)\s*\|\s*ROCm version:\s*(\S+))");
  amd_smi_version v;
  bool found = false;
  for (const auto raw : split_lines(strip_source_header(text))) {
    const std::string line(trim(raw));
    std::smatch m;
    if (line.starts_with("ERROR"))
      v.errors.push_back(line);
    else if (std::regex_search(line, m, ver)) {
      v.tool = m[1];
      v.library = m[2];
      v.rocm = m[3];
      found = true;
    }
  }
  if (!found) {
    throw parse_error("amd-smi version", "'AMDSMI Tool: ... | ROCm version: ...'", excerpt(strip_source_header(text)),
                      "Run `amd-smi version` and capture stdout and stderr");
  }
  return v;
}

}  // namespace r2r::plugins::verifier
