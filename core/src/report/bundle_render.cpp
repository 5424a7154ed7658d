// SPDX-License-Identifier: MIT
#include "bundle_render.hpp"

#include <r2r/planning/plan.hpp>
#include <r2r/report/trajectory.hpp>

#include <fstream>
#include <iomanip>
#include <regex>
#include <set>
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

/// The host of a plain-http URL (pip refuses one unless it is trusted); "" for any other URL.
std::string http_host(const std::string& url) {
  if (url.rfind("http://", 0) != 0) return {};
  std::string host = url.substr(7, url.find('/', 7) == std::string::npos ? std::string::npos : url.find('/', 7) - 7);
  if (const auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  return host.substr(0, host.find(':'));
}

/// The build arguments of one install step: the index it used, as pip and uv read it. A URL
/// whose credentials were removed ("***@") is declared without a value: the builder passes it
/// (--build-arg), the file never holds a secret.
nlohmann::json index_args(const nlohmann::json& index) {
  nlohmann::json args = nlohmann::json::object();
  std::string trusted;
  auto value = [&](const std::string& url) -> nlohmann::json {
    if (const auto host = http_host(url);
        !host.empty() && (" " + trusted + " ").find(" " + host + " ") == std::string::npos)
      trusted += (trusted.empty() ? "" : " ") + host;
    return url.find("***@") != std::string::npos ? nlohmann::json(nullptr) : nlohmann::json(url);
  };
  if (const std::string url = index.value("index_url", std::string()); !url.empty())
    args["PIP_INDEX_URL"] = args["UV_INDEX_URL"] = value(url);
  std::string extra;
  bool secret = false;
  for (const auto& url : index.value("extra_index_urls", nlohmann::json::array())) {
    if (!url.is_string()) continue;
    secret = secret || value(url.get<std::string>()).is_null();
    extra += (extra.empty() ? "" : " ") + url.get<std::string>();
  }
  if (!extra.empty())
    args["PIP_EXTRA_INDEX_URL"] = args["UV_EXTRA_INDEX_URL"] = secret ? nlohmann::json(nullptr) : nlohmann::json(extra);
  if (!trusted.empty()) args["PIP_TRUSTED_HOST"] = trusted;
  return args;
}

/// `command` with its blanks collapsed and trimmed: the same install, however it was spaced.
std::string normalized(const std::string& command) {
  std::string out;
  for (char c : command) {
    const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (blank) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
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
  const auto installs = successful_installs(trajectory);
  // The executor ran the plan's own install steps with the sandbox's index too: its arguments are
  // declared before the first step, and an ARG holds for every later step of the build.
  for (const auto& i : installs) {
    auto args = index_args(i.index);
    if (args.empty()) continue;
    auto& steps = plan["install_steps"];
    if (steps.is_array() && !steps.empty() && steps[0].is_object() && !steps[0].contains("args"))
      steps[0]["args"] = std::move(args);
    break;
  }
  // An install runs once in the image: the plan's own steps are already there (the executor runs
  // them too), and an install the executor repeated with the same index (after a rollback, a
  // retry) is the step it was the first time.
  std::set<std::string> done;
  for (const auto& s : plan.value("install_steps", nlohmann::json::array()))
    if (s.is_object() && s.contains("command") && s["command"].is_string())
      done.insert(normalized(s["command"].get<std::string>()));
  std::set<std::pair<std::string, std::string>> repeated;
  for (const auto& i : installs) {
    const std::string command = normalized(i.command);
    if (done.count(command) > 0 || !repeated.insert({command, i.index.dump()}).second) continue;
    nlohmann::json step{
        {"id", "executor-turn-" + std::to_string(i.turn)},
        {"kind", "pip"},
        {"command", i.command},
        {"reason", "installed by the executor at turn " + std::to_string(i.turn) + " (exit 0); see trajectory.jsonl"}};
    if (auto args = index_args(i.index); !args.empty()) step["args"] = std::move(args);
    plan["install_steps"].push_back(std::move(step));
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

namespace r2r::report {

std::string render_bundle_dockerfile(const nlohmann::json& plan, const std::vector<nlohmann::json>& trajectory,
                                     bool with_patch) {
  return detail::render_bundle_dockerfile(plan, trajectory, with_patch);
}

}  // namespace r2r::report
