// SPDX-License-Identifier: MIT
#include "bundle_render.hpp"

#include <r2r/planning/plan.hpp>
#include <r2r/report/trajectory.hpp>

#include <fstream>
#include <iomanip>
#include <regex>
#include <sstream>

namespace r2r::report::detail {
namespace {

/// Values of secret-looking variables (NAME containing KEY, TOKEN, SECRET or PASSWORD) and URL
/// credentials replaced by "***".
std::string redact(const std::string& command) {
  static const std::regex assignment(
      R"(\b([A-Za-z_][A-Za-z0-9_]*(KEY|TOKEN|SECRET|PASSWORD|PASSWD)[A-Za-z0-9_]*)=(\S+))", std::regex::icase);
  static const std::regex userinfo(R"(([a-z][a-z0-9+.-]*://)[^/@\s:]+(:[^/@\s]*)?@)", std::regex::icase);
  std::string out = std::regex_replace(command, assignment, "$1=***");
  return std::regex_replace(out, userinfo, "$1***@");
}

}  // namespace

std::string render_commands_log(const bundle_inputs& in) {
  std::ostringstream log;
  log << "# repo2rocm commands.log\n# host: commands run outside the sandbox (exit code, seconds, command)\n";
  for (const auto& c : in.host_commands)
    log << "host\t" << c.exit_code << "\t" << std::fixed << std::setprecision(2) << c.seconds << "\t"
        << redact(c.command) << "\n";
  log << "# sandbox: the executor's commands.log\n";
  if (!in.commands_log.empty()) {
    std::ifstream src(in.commands_log, std::ios::binary);
    log << src.rdbuf();
  }
  return log.str();
}

bool has_commands(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line[0] != '#' && line.find_first_not_of(" \t\r") != std::string_view::npos) return true;
    pos = nl + 1;
  }
  return false;
}

std::string render_bundle_dockerfile(const nlohmann::json& plan_in, const std::vector<nlohmann::json>& trajectory,
                                     bool with_patch) {
  nlohmann::json plan = plan_in;
  for (const auto& i : successful_installs(trajectory)) {
    plan["install_steps"].push_back({{"id", "executor-turn-" + std::to_string(i.turn)},
                                     {"kind", "pip"},
                                     {"command", i.command},
                                     {"reason", "installed by the executor at turn " + std::to_string(i.turn) +
                                                    " (exit 0); see trajectory.jsonl"}});
  }
  return planning::render_dockerfile(plan, with_patch ? "patch.diff" : "");
}

std::string render_environment(const std::vector<std::string>& freeze) {
  std::string out;
  for (const auto& line : freeze) out += line + "\n";
  return out;
}

std::vector<std::string> parse_environment(std::string_view text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    out.emplace_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

}  // namespace r2r::report::detail
