// SPDX-License-Identifier: MIT
#include <r2r/verify/text.hpp>
#include <r2r/verify/torch_output.hpp>

#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>
#include <stdexcept>

namespace r2r::plugins::verifier {
namespace {

std::string none_to_empty(std::string v) {
  v = std::string(trim(v));
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
  return (v == "None" || v == "N/A" || v == "Could not collect") ? std::string() : v;
}

// Lines longer than this hold no torch fact; libstdc++'s regex recurses once per character matched,
// so a long line from a hostile workload log would overflow the stack (found by fuzz_torch_output).
constexpr std::size_t max_fact_line = 512;

// Each '...' item of `text`, scanned by hand (no regex: see max_fact_line).
void add_quoted(std::string_view text, std::vector<std::string>& out) {
  for (std::size_t open = text.find('\''); open != std::string_view::npos; open = text.find('\'', open)) {
    const std::size_t close = text.find('\'', open + 1);
    if (close == std::string_view::npos) break;
    out.emplace_back(text.substr(open + 1, close - open - 1));
    open = close + 1;
  }
}

// The text between `key` (a word: no identifier character before it) and the next quote.
std::optional<std::string> quoted_field(std::string_view fields, std::string_view key) {
  for (std::size_t at = fields.find(key); at != std::string_view::npos; at = fields.find(key, at + 1)) {
    const bool word = at == 0 || !(std::isalnum(static_cast<unsigned char>(fields[at - 1])) || fields[at - 1] == '_');
    if (!word) continue;
    const std::size_t begin = at + key.size(), end = fields.find('\'', begin);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(fields.substr(begin, end - begin));
  }
  return std::nullopt;
}

}  // namespace

torch_facts parse_torch_text(std::string_view text) {
  const std::string body(strip_source_header(text));
  const auto lines = split_lines(body);
  torch_facts f;
  bool any = false;
  static const std::regex kv(
      R"(^\s*(PyTorch version|ROCM used to build PyTorch|CUDA used to build PyTorch|Is CUDA available|number of GPUs|Devices|Version|torch\.__version__|torch\.version\.hip|torch\.version\.cuda|torch\.cuda\.is_available\(\)|torch\.cuda\.get_device_name\(\d+\))(?::| =)\s*(.*)$)");
  static const std::regex gpu_line(R"(^GPU (\d+): (.+)$)");
  static const std::regex device_name(R"(^Device (\d+) name: ?(.*)$)");
  static const std::regex detected(R"(^Detected (\d+) AMD device)");
  static const std::regex repl(
      R"(^\s*>>>>? (torch\.__version__|torch\.version\.hip|torch\.version\.cuda|torch\.cuda\.is_available\(\)|torch\.cuda\.device_count\(\)|torch\.cuda\.get_device_name\(\d+\)|pprint\.pp\(torch\.cuda\.get_arch_list\(\)\))\s*$)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].size() > max_fact_line) continue;
    const std::string line(trim(lines[i]));
    std::smatch m;
    if (std::regex_match(line, m, kv)) {
      const std::string key = m[1], value = none_to_empty(m[2]);
      any = true;
      if (key == "PyTorch version" || key == "torch.__version__" || key == "Version")
        f.version = value;
      else if (key == "ROCM used to build PyTorch" || key == "torch.version.hip")
        f.hip = value;
      else if (key == "CUDA used to build PyTorch" || key == "torch.version.cuda")
        f.cuda = value;
      else if (key == "Is CUDA available" || key == "torch.cuda.is_available()")
        f.is_available = value == "True";
      else if (key == "number of GPUs" || key == "Devices")
        f.device_count = static_cast<int>(to_int(value).value_or(-1));
      else if (key.starts_with("torch.cuda.get_device_name"))
        f.device_names.push_back(value);
      if (key == "number of GPUs" && i + 1 < lines.size()) add_quoted(std::string(lines[i + 1]), f.device_names);
    } else if (line.starts_with("GPU models and configuration:")) {
      any = true;
      const std::string rest(trim(std::string_view(line).substr(29)));
      static const std::regex one(R"(^(.*?) \(([^)]*)\)$)");
      if (std::regex_match(rest, m, one)) {
        f.device_names.push_back(m[1]);
        f.archs.push_back(m[2]);
      }
      for (std::size_t k = i + 1; k < lines.size(); ++k) {
        const std::string next(trim(lines[k]));
        if (!std::regex_match(next, m, gpu_line)) break;
        f.device_names.push_back(m[2]);
      }
    } else if (std::regex_search(line, m, detected)) {
      any = true;
      f.device_count = int_field(m[1].str(), "torch output", "a device count");
      f.device_names.clear();  // a later listing replaces an earlier one
    } else if (std::regex_match(line, m, device_name)) {
      f.device_names.push_back(std::string(trim(m[2].str())));
    } else if (std::regex_match(line, m, repl)) {
      any = true;
      const std::string what = m[1];
      std::string value;
      std::size_t k = i + 1;
      if (k < lines.size()) value = none_to_empty(std::string(lines[k]));
      if (what == "torch.__version__")
        f.version = value;
      else if (what == "torch.version.hip")
        f.hip = value;
      else if (what == "torch.version.cuda")
        f.cuda = value;
      else if (what == "torch.cuda.is_available()")
        f.is_available = value == "True";
      else if (what == "torch.cuda.device_count()")
        f.device_count = static_cast<int>(to_int(value).value_or(-1));
      else if (what.starts_with("torch.cuda.get_device_name"))
        f.device_names.push_back(value);
      else {  // an arch list, possibly spread over several lines up to ']'
        std::string list;
        for (; k < lines.size(); ++k) {
          list += std::string(lines[k]);
          if (lines[k].find(']') != std::string_view::npos) break;
        }
        add_quoted(list, f.arch_list);
      }
    }
  }
  // _CudaDeviceProperties(...) may wrap over lines: search the whole text.
  constexpr std::string_view props = "_CudaDeviceProperties(";
  for (std::size_t at = body.find(props); at != std::string::npos; at = body.find(props, at + 1)) {
    const std::size_t begin = at + props.size(), end = body.find(')', begin);
    if (end == std::string::npos) break;
    any = true;
    const std::string_view fields = std::string_view(body).substr(begin, end - begin);
    if (auto name = quoted_field(fields, "name='")) f.device_names.push_back(*name);
    if (auto arch = quoted_field(fields, "gcnArchName='")) f.archs.push_back(*arch);
  }
  if (!any) {
    throw parse_error("torch output", "collect_env lines, torch.version / device prints or _CudaDeviceProperties",
                      excerpt(body), "Capture the output of the torch probe or `python -m torch.utils.collect_env`");
  }
  return f;
}

std::vector<profiler_row> parse_profiler_table(std::string_view text) {
  const auto lines = split_lines(strip_source_header(text));
  std::vector<profiler_row> out;
  std::vector<std::string_view> header;
  std::size_t name_width = 0;
  int dashes = 0;
  for (const auto line : lines) {
    if (line.starts_with("-----")) {
      ++dashes;
      if (dashes == 1) name_width = line.find(' ');
      continue;
    }
    if (dashes == 1 && header.empty()) {
      header = split_ws(line.substr(std::min(name_width, line.size())));
      continue;
    }
    if (dashes != 2 || name_width == 0 || line.size() <= name_width) continue;
    profiler_row r;
    r.name = std::string(trim(line.substr(0, name_width)));
    const auto cells = split_ws(line.substr(name_width));
    if (cells.empty()) continue;
    r.calls = to_int(cells.back()).value_or(0);
    // Columns: Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, Self CUDA, ...
    if (cells.size() >= 6) r.device = cells[5] != "0.000us";
    out.push_back(std::move(r));
  }
  if (dashes < 2) {
    throw parse_error("torch.profiler table", "a key_averages() table between dashed rules",
                      excerpt(strip_source_header(text)), "Print prof.key_averages().table(...) in full");
  }
  return out;
}

double probe_report::allocated_bytes() const {
  double total = 0;
  for (const auto& d : devices) total += d.max_memory_allocated;
  return total;
}

namespace {
probe_report probe_from_json(const nlohmann::json& j);
}  // namespace

probe_report parse_probe_json(std::string_view text) {
  constexpr std::string_view tool = "repo2rocm probe JSON";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw parse_error(tool, "one JSON object written at interpreter exit", e.what(),
                      "The probe file is incomplete (the process was killed before exit?); re-run the workload");
  }
  if (!j.is_object() || !j.contains("pid")) {
    throw parse_error(tool, "an object with \"pid\"", excerpt(text), "The file is not a repo2rocm probe output");
  }
  // The probe runs inside the workload's interpreter, so any field may hold any type: a field of
  // the wrong type is a parse_error, never a json::type_error escaping (found by fuzz_probe_json).
  try {
    return probe_from_json(j);
  } catch (const nlohmann::json::exception& e) {
    throw parse_error(tool, "the probe's fields with their types (pid number, torch object, devices array)", e.what(),
                      "The file is not a repo2rocm probe output, or was written by something else");
  } catch (const std::invalid_argument& e) {
    throw parse_error(tool, "whole numbers in range for pid, ppid, device index and kernel counts", e.what(),
                      "The file is not a repo2rocm probe output, or was written by something else");
  }
}

namespace {
/// A JSON number as a whole number in [lo, hi]: integers as they are, a float only when it is whole
/// and in range. The probe runs in the workload's interpreter, so a field may hold 1e300 or 2.5, and a
/// cast of those to an integer is undefined behaviour (found by fuzz_probe_json). Throws
/// std::invalid_argument naming the field otherwise.
long long whole_number(const nlohmann::json& v, const char* field, long long lo, long long hi) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<unsigned long long>();
    if (u <= static_cast<unsigned long long>(hi)) return static_cast<long long>(u);
  } else if (v.is_number_integer()) {
    const auto i = v.get<long long>();
    if (i >= lo && i <= hi) return i;
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^63 is exact as a double; [lo, hi] of long long or int lies inside (-2^63, 2^63).
    if (std::isfinite(d) && d == std::trunc(d) && d >= static_cast<double>(lo) && d < 9223372036854775808.0 &&
        d <= static_cast<double>(hi))
      return static_cast<long long>(d);
  }
  throw std::invalid_argument(std::string("\"") + field +
                              "\" is not a whole number in range: " + v.dump().substr(0, 80));
}

long long whole_field(const nlohmann::json& object, const char* field, long long fallback) {
  const auto it = object.find(field);
  if (it == object.end()) return fallback;
  return whole_number(*it, field, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
}

probe_report probe_from_json(const nlohmann::json& j) {
  probe_report p;
  p.pid = whole_field(j, "pid", -1);
  p.ppid = whole_field(j, "ppid", -1);
  if (const auto t = j.find("torch"); t != j.end() && t->is_object()) {
    p.torch_loaded = true;
    p.torch_version = t->value("version", std::string());
    if (const auto v = t->find("hip"); v != t->end() && v->is_string()) p.hip = v->get<std::string>();
    if (const auto v = t->find("cuda"); v != t->end() && v->is_string()) p.cuda = v->get<std::string>();
  }
  p.is_available = j.value("is_available", false);
  p.initialized = j.value("initialized", false);
  for (const auto& d : j.value("devices", nlohmann::json::array())) {
    const auto index = d.contains("index")
                           ? static_cast<int>(whole_number(d.at("index"), "index", std::numeric_limits<int>::min(),
                                                           std::numeric_limits<int>::max()))
                           : -1;
    p.devices.push_back(
        {index, d.value("name", std::string()), d.value("arch", std::string()), d.value("max_memory_allocated", 0.0)});
  }
  if (const auto k = j.find("kernels"); k != j.end() && k->is_object()) {
    std::map<std::string, long long> kernels;
    for (const auto& [name, count] : k->items())
      kernels[name] =
          whole_number(count, "kernels", std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max());
    p.kernels = std::move(kernels);
  }
  if (const auto v = j.find("profiler_error"); v != j.end() && v->is_string()) p.profiler_error = v->get<std::string>();
  if (const auto v = j.find("probe_error"); v != j.end() && v->is_string()) p.probe_error = v->get<std::string>();
  return p;
}
}  // namespace

}  // namespace r2r::plugins::verifier
