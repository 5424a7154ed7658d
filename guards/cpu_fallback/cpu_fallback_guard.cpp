// SPDX-License-Identifier: MIT
#include "cpu_fallback_guard.hpp"

#include <r2r/sdk/error.hpp>

#include <sstream>

namespace r2r::plugins::guard {

void from_json(const nlohmann::json& j, cpu_fallback_guard::config& c) {
  const cpu_fallback_guard::config defaults;
  c.extra_patterns = j.value("extra_patterns", defaults.extra_patterns);
  c.action_types = j.value("action_types", defaults.action_types);
  c.max_scan_bytes = j.value("max_scan_bytes", defaults.max_scan_bytes);
}

namespace {

constexpr auto flags = std::regex::ECMAScript | std::regex::optimize;

std::regex compile(const std::string& pattern, const char* origin) {
  try {
    return std::regex(pattern, flags);
  } catch (const std::regex_error& e) {
    throw sdk::invalid_argument(std::string(origin) + " pattern '" + pattern +
                                "' is not a valid ECMAScript regex: " + e.what());
  }
}

std::string line_at(const std::string& text, std::size_t offset) {
  const auto begin = text.rfind('\n', offset);
  const auto end = text.find('\n', offset);
  const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
  std::string line = text.substr(from, (end == std::string::npos ? text.size() : end) - from);
  if (line.size() > 160) line = line.substr(0, 157) + "...";
  return line;
}

/// The built-in patterns, compiled once per process (std::regex copies share the compiled
/// automaton, so each guard instance copies them for the price of a reference count).
const std::vector<cpu_fallback_guard::rule>& builtin_action_rules() {
  static const std::vector<cpu_fallback_guard::rule> rules{
      {"an empty or negative *_VISIBLE_DEVICES hides every GPU",
       compile(R"(\b(CUDA|HIP|ROCR)_VISIBLE_DEVICES\s*=\s*(""|''|-1\b|(?=[\s;&|)]|$)))", "built-in")},
      {"an environment edit hides every GPU",
       compile(R"(environ\s*\[\s*['"](CUDA|HIP|ROCR)_VISIBLE_DEVICES['"]\s*\]\s*=\s*['"](-1)?['"])", "built-in")},
      {"a command-line flag selects the CPU",
       compile(
           R"((^|\s)--(use[-_])?cpu(?![\w-])|(^|\s)--no[-_](cuda|gpu)(?![\w-])|(^|\s)--device[=\s]+['"]?cpu(?![\w-]))",
           "built-in")},
      {"code selects the CPU device",
       compile(R"(\bdevice\s*=\s*['"]cpu['"]|torch\.device\(\s*['"]cpu['"]\s*\)|\buse_(cuda|gpu)\s*=\s*False\b)",
               "built-in")},
      {"code pretends no GPU is available",
       compile(R"(torch\.cuda\.is_available\s*=\s*lambda[^:]*:\s*False)", "built-in")},
  };
  return rules;
}

const std::vector<cpu_fallback_guard::rule>& builtin_output_signals() {
  static const std::vector<cpu_fallback_guard::rule> signals{
      {"the program reported running on the CPU",
       compile(R"((using|running on|selected)\s+(device\s*[:=]?\s*)?['"]?cpu\b)", "built-in")},
      {"the program reported no GPU", compile(R"(no (cuda|rocm|hip|gpu)s?\b.*(available|found|detected))", "built-in")},
      {"the program reported a CPU fallback", compile(R"(fall(ing)?\s*back to (the )?cpu)", "built-in")},
      {"torch reports no GPU", compile(R"(torch\.cuda\.is_available\(\)\s*(=|:|is)?\s*false)", "built-in")},
  };
  return signals;
}

}  // namespace

cpu_fallback_guard::cpu_fallback_guard(const config& cfg, const sdk::host& host)
    : action_types_(cfg.action_types.begin(), cfg.action_types.end()),
      max_scan_bytes_(cfg.max_scan_bytes),
      files_(cfg.max_scan_bytes),
      host_(host) {
  rules_ = builtin_action_rules();
  for (const auto& pattern : cfg.extra_patterns)
    rules_.push_back({"a configured CPU pattern", compile(pattern, "extra")});
  output_signals_ = builtin_output_signals();
  R2R_LOG(host_, debug, "cpu_fallback guard ready with " << rules_.size() << " action rules");
}

std::string cpu_fallback_guard::scanned_text(const sdk::guard::action& action) const {
  std::string text;
  if (action.type == "write_file") {
    text = action.text("content");
  } else if (action.type == "apply_patch") {
    std::istringstream lines(action.text("patch"));
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty() && line[0] == '+' && line.rfind("+++", 0) != 0) text += line.substr(1) + "\n";
    }
  } else if (const auto view = view_action(action, files_, max_scan_bytes_)) {
    text = view->text;
  }
  if (text.size() > max_scan_bytes_) text.resize(max_scan_bytes_);
  return text;
}

bool cpu_fallback_guard::applies_to(const std::string& type) const {
  if (action_types_.count(type)) return true;
  static const std::set<std::string> command_types{"run", "run_workload", "build_kernel", "install"};
  if (!command_types.count(type)) return false;
  for (const auto& t : command_types)
    if (action_types_.count(t)) return true;
  return false;
}

sdk::guard::decision cpu_fallback_guard::check_action(const sdk::guard::check_request& request) {
  if (!applies_to(request.action.type)) return sdk::guard::decision::allow();
  if (const auto view = view_action(request.action, files_, max_scan_bytes_))
    if (auto d = deny_computed(*view, "cpu fallback")) return *d;
  const std::string text = scanned_text(request.action);
  for (const auto& r : rules_) {
    std::smatch m;
    if (!std::regex_search(text, m, r.pattern)) continue;
    const std::string where = line_at(text, static_cast<std::size_t>(m.position(0)));
    R2R_LOG(host_, info, "deny " << request.action.type << ": " << r.name << ": " << where);
    return sdk::guard::decision::deny(
        "forces CPU execution: " + r.name + " (`" + m.str(0) + "` in: " + where + ")",
        "run on the ROCm GPU instead; a CPU run can never verify a ROCm port. Remove the CPU selection, or fix "
        "why the GPU path fails (the denied text shows where)");
  }
  return sdk::guard::decision::allow();
}

sdk::guard::observe_response cpu_fallback_guard::observe(const sdk::guard::observe_request& request) {
  files_.observe(request);
  sdk::guard::observe_response out;
  for (const std::string* stream : {&request.observation.stdout_text, &request.observation.stderr_text}) {
    std::string text = stream->size() > max_scan_bytes_ ? stream->substr(stream->size() - max_scan_bytes_) : *stream;
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& s : output_signals_) {
      std::smatch m;
      if (std::regex_search(text, m, s.pattern)) {
        out.evidence.push_back(
            {"cpu_fallback_signal", s.name + ": " + line_at(text, static_cast<std::size_t>(m.position(0)))});
      }
    }
  }
  return out;
}

}  // namespace r2r::plugins::guard
