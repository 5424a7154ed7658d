// SPDX-License-Identifier: MIT
// write_bundle(): renders every file of the bundle into a staged directory, hashes them into
// MANIFEST.sha256 and publishes the directory atomically.
#include "atomic_dir.hpp"
#include "report_facts.hpp"

#include <r2r/planning/plan.hpp>
#include <r2r/report/bundle.hpp>
#include <r2r/report/html.hpp>
#include <r2r/report/manifest.hpp>
#include <r2r/report/trajectory.hpp>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <regex>
#include <sstream>

namespace r2r::report {
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

std::string commands_log(const bundle_inputs& in) {
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

/// The planner's Dockerfile with the executor's successful installs appended as install steps and
/// the patch applied to the repository at the pinned commit.
std::string bundle_dockerfile(const bundle_inputs& in, const std::vector<nlohmann::json>& trajectory) {
  nlohmann::json plan = in.plan;
  for (const auto& i : successful_installs(trajectory)) {
    plan["install_steps"].push_back({{"id", "executor-turn-" + std::to_string(i.turn)},
                                     {"kind", "pip"},
                                     {"command", i.command},
                                     {"reason", "installed by the executor at turn " + std::to_string(i.turn) +
                                                    " (exit 0); see trajectory.jsonl"}});
  }
  return planning::render_dockerfile(plan, in.patch_diff.empty() ? "" : "patch.diff");
}

}  // namespace

core::result<bundle_summary> write_bundle(const bundle_inputs& in, const std::filesystem::path& dir) {
  if (in.repo_archive.empty() || !std::filesystem::is_regular_file(in.repo_archive))
    return core::fail(core::phase::io,
                      "bundle: the repository archive '" + in.repo_archive.string() +
                          "' is missing; pass the repo.tar that `repo2rocm plan` wrote (the Dockerfile ADDs it)",
                      "", in.repo_archive.string());
  if (!in.commands_log.empty() && !std::filesystem::is_regular_file(in.commands_log))
    return core::fail(core::phase::io,
                      "bundle: the executor's commands.log " + in.commands_log.string() +
                          " does not exist; pass an empty path when there is none",
                      "", in.commands_log.string());
  auto trajectory = read_trajectory(in.trajectory);
  if (!trajectory) return tl::unexpected(trajectory.error());
  auto report = build_report(in, *trajectory);
  if (!report) return tl::unexpected(report.error());

  std::ostringstream trajectory_text;
  {
    std::ifstream t(in.trajectory, std::ios::binary);
    trajectory_text << t.rdbuf();
  }
  std::string dockerfile;
  try {
    dockerfile = bundle_dockerfile(in, *trajectory);
  } catch (const nlohmann::json::exception& e) {
    return core::fail(core::phase::config, std::string("bundle: the plan cannot be rendered into a Dockerfile: ") +
                                               e.what() + "; pass the plan.json written by `repo2rocm plan`");
  }

  auto staged = detail::staged_dir::create(dir);
  if (!staged) return tl::unexpected(staged.error());
  const std::pair<const char*, std::string> files[] = {
      {"Dockerfile", dockerfile},
      {"patch.diff", in.patch_diff},
      {"commands.log", commands_log(in)},
      {"plan.json", in.plan.dump(2) + "\n"},
      {"trajectory.jsonl", trajectory_text.str()},
      {"report.json", report->dump(2) + "\n"},
      {"report.html", render_html(*report, *trajectory, in.patch_diff)},
  };
  for (const auto& [name, text] : files)
    if (auto w = staged->write(name, text); !w) return tl::unexpected(w.error());
  if (auto c = staged->copy("repo.tar", in.repo_archive); !c) return tl::unexpected(c.error());
  auto entries = hash_directory(staged->path());
  if (!entries) return tl::unexpected(entries.error());
  if (auto w = staged->write(manifest_name, render_manifest(*entries)); !w) return tl::unexpected(w.error());
  if (auto p = staged->publish(); !p) return tl::unexpected(p.error());

  bundle_summary s;
  s.dir = std::filesystem::absolute(dir).lexically_normal();
  s.verdict = (*report)["verdict"].get<std::string>();
  s.exit_code = exit_code_of(s.verdict);
  for (const auto& e : *entries) s.files.push_back(e.name);
  s.files.emplace_back(manifest_name);
  std::sort(s.files.begin(), s.files.end());
  auto facts = detail::pfs_facts(*report);  // the facts build_report recorded
  if (!facts) return tl::unexpected(facts.error());
  s.pfs = compute_pfs(*facts);
  return s;
}

}  // namespace r2r::report
