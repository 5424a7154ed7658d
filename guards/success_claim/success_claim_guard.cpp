// SPDX-License-Identifier: MIT
#include "success_claim_guard.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/support/shell.hpp>

#include <regex>
#include <sstream>

namespace r2r::plugins::guard {

void from_json(const nlohmann::json& j, success_claim_guard::config& c) {
  const success_claim_guard::config defaults;
  c.markers = j.value("markers", defaults.markers);
  c.readers = j.value("readers", defaults.readers);
}

namespace {

/// "./a/b.txt" and "a//b.txt" -> "a/b.txt".
std::string normalize_path(std::string p) {
  while (p.rfind("./", 0) == 0) p = p.substr(2);
  for (auto pos = p.find("//"); pos != std::string::npos; pos = p.find("//")) p.erase(pos, 1);
  return p;
}

/// The added lines of a unified diff and the paths it writes (`+++ b/<path>`).
void patch_parts(const std::string& patch, std::string& added, std::vector<std::string>& paths) {
  std::istringstream lines(patch);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("+++ ", 0) == 0) {
      std::string p = line.substr(4);
      if (p.rfind("b/", 0) == 0) p = p.substr(2);
      p = p.substr(0, p.find('\t'));
      if (p != "/dev/null") paths.push_back(p);
    } else if (!line.empty() && line[0] == '+') {
      added += line.substr(1) + "\n";
    }
  }
}

/// What `printf format args...` prints, roughly: each directive takes the next argument, and the
/// format is reused while arguments remain (as printf does). Escapes are left as written.
std::string render_printf(const std::vector<std::string>& argv) {
  static const std::regex directive(R"(%[-+ #0-9.]*[sbcdiqxXuoeEfgG%])");
  if (argv.size() < 2) return {};
  const std::string& format = argv[1];
  std::size_t next = 2;
  std::string out;
  for (std::size_t consumed = 1; consumed > 0;) {  // stops once a pass takes no argument
    const std::size_t before = next;
    std::size_t last = 0;
    for (auto it = std::sregex_iterator(format.begin(), format.end(), directive); it != std::sregex_iterator(); ++it) {
      out += format.substr(last, static_cast<std::size_t>(it->position(0)) - last);
      last = static_cast<std::size_t>(it->position(0) + it->length(0));
      if (it->str(0) == "%%")
        out += '%';
      else if (next < argv.size())
        out += argv[next++];
    }
    out += format.substr(last);
    consumed = next < argv.size() ? next - before : 0;
  }
  return out;
}

}  // namespace

success_claim_guard::success_claim_guard(const config& cfg, const sdk::host& host)
    : markers_(cfg.markers), readers_(cfg.readers.begin(), cfg.readers.end()), host_(host) {
  if (markers_.empty()) throw sdk::invalid_argument("markers: at least one success marker is required");
  for (const auto& m : markers_)
    if (m.empty()) throw sdk::invalid_argument("markers: a marker must not be empty");
}

std::optional<std::string> success_claim_guard::marker_in(const std::string& text) const {
  for (const auto& m : markers_)
    if (text.find(m) != std::string::npos) return m;
  return std::nullopt;
}

bool success_claim_guard::is_marker_file(const std::string& path) const {
  const std::string p = normalize_path(path);
  for (const auto& f : marker_files_) {
    if (p == f) return true;
    const auto& [longer, shorter] = p.size() > f.size() ? std::pair(p, f) : std::pair(f, p);
    if (longer.size() > shorter.size() &&
        longer.compare(longer.size() - shorter.size(), shorter.size(), shorter) == 0 &&
        longer[longer.size() - shorter.size() - 1] == '/')
      return true;
  }
  return false;
}

std::optional<std::string> success_claim_guard::forged_by(const std::string& command) const {
  static const std::set<std::string> file_printers{"cat", "head", "tail", "tac", "less", "more", "bat",
                                                   "nl",  "tee",  "cp",   "mv",  "sed",  "awk",  "strings"};
  for (const auto& cmd : shell::analyze(command)) {
    for (const auto& [var, value] : cmd.env)
      if (auto m = marker_in(value)) return "stores the success marker " + *m + " in $" + var;
    if (cmd.argv.empty()) continue;
    const std::string name = shell::program_name(cmd.argv[0]);
    if (readers_.count(name) == 0) {
      for (std::size_t k = 1; k < cmd.argv.size(); ++k)
        if (auto m = marker_in(cmd.argv[k])) return "`" + name + "` emits the success marker " + *m + " itself";
      if (name == "printf")
        if (auto m = marker_in(render_printf(cmd.argv))) return "`printf` assembles the success marker " + *m;
    }
    if (file_printers.count(name)) {
      for (std::size_t k = 1; k < cmd.argv.size(); ++k)
        if (is_marker_file(cmd.argv[k]))
          return "`" + name + "` prints " + cmd.argv[k] + ", a file written with a success marker";
    }
    for (const auto& r : cmd.redirects)
      if (r.op == "<" && is_marker_file(r.target))
        return "reads " + r.target + ", a file written with a success marker";
  }
  return std::nullopt;
}

sdk::guard::decision success_claim_guard::deny_forgery(const std::string& why, const std::string& action_type) const {
  R2R_LOG(host_, info, "deny " << action_type << ": " << why);
  return sdk::guard::decision::deny(
      "forges a success signal: " + why,
      "only the verifier stage emits success markers; run the workload and let the verifier check it, then "
      "claim_success once context.verifier_passed is true");
}

sdk::guard::decision success_claim_guard::check_action(const sdk::guard::check_request& request) {
  const auto& a = request.action;
  if (a.type == "claim_success") {
    if (!request.context.verifier_ran) {
      R2R_LOG(host_, info, "deny claim_success: the verifier has not run");
      return sdk::guard::decision::deny(
          "claim_success before the verifier ran on the current workspace state",
          "run the verifier stage after the last change; a claim is accepted only with context.verifier_ran and "
          "context.verifier_passed set by the executor");
    }
    if (!request.context.verifier_passed) {
      R2R_LOG(host_, info, "deny claim_success: the verifier failed");
      return sdk::guard::decision::deny("claim_success although the verifier reported failure",
                                        "fix what the verifier reported and run it again until it passes");
    }
    return sdk::guard::decision::allow();
  }
  if (const auto view = view_action(a, files_, std::size_t{1} << 20)) {
    if (auto d = deny_computed(*view, "success claim")) return *d;
    if (auto why = forged_by(view->text)) return deny_forgery(*why, a.type);
  } else if (a.type == "write_file") {
    if (auto m = marker_in(a.text("content"))) {
      marker_files_.insert(normalize_path(a.text("path")));
      return deny_forgery("writes the success marker " + *m + " into " + a.text("path"), a.type);
    }
  } else if (a.type == "apply_patch") {
    std::string added;
    std::vector<std::string> paths;
    patch_parts(a.text("patch"), added, paths);
    if (auto m = marker_in(added)) {
      for (const auto& p : paths) marker_files_.insert(normalize_path(p));
      return deny_forgery("adds the success marker " + *m + " to " + (paths.empty() ? "a file" : paths.front()),
                          a.type);
    }
  }
  return sdk::guard::decision::allow();
}

sdk::guard::observe_response success_claim_guard::observe(const sdk::guard::observe_request& request) {
  files_.observe(request);
  sdk::guard::observe_response out;
  for (const std::string* stream : {&request.observation.stdout_text, &request.observation.stderr_text}) {
    if (auto m = marker_in(*stream)) {
      out.evidence.push_back({"unverified_marker", "the output of `" + request.action.type + "` contains " + *m +
                                                       "; printed markers are not evidence, only the verifier's are"});
      break;
    }
  }
  return out;
}

}  // namespace r2r::plugins::guard
