// SPDX-License-Identifier: MIT
// write_bundle(): renders every file of the bundle into a staged directory, hashes them into
// MANIFEST.sha256, signs it with the host key (MANIFEST.sig) and publishes the directory atomically.
#include "atomic_dir.hpp"
#include "bundle_checks.hpp"
#include "bundle_render.hpp"
#include "report_facts.hpp"

#include <r2r/report/bundle.hpp>
#include <r2r/report/html.hpp>
#include <r2r/report/manifest.hpp>
#include <r2r/report/signing.hpp>
#include <r2r/report/trajectory.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace r2r::report {

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
  if (in.state_dir.empty())
    return core::fail(core::phase::config,
                      "bundle: no state directory for the host's signing key; pass the run's --state-dir");
  auto key = host_signing_key(in.state_dir);
  if (!key) return tl::unexpected(key.error());
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
    dockerfile = detail::render_bundle_dockerfile(in.plan, *trajectory, !in.patch_diff.empty());
  } catch (const nlohmann::json::exception& e) {
    return core::fail(core::phase::config, std::string("bundle: the plan cannot be rendered into a Dockerfile: ") +
                                               e.what() + "; pass the plan.json written by `repo2rocm plan`");
  }

  auto staged = detail::staged_dir::create(dir);
  if (!staged) return tl::unexpected(staged.error());
  std::vector<std::pair<std::string, std::string>> files = {
      {"Dockerfile", dockerfile},
      {"patch.diff", in.patch_diff},
      {"commands.log", detail::render_commands_log(in)},
      {"plan.json", in.plan.dump(2) + "\n"},
      {"trajectory.jsonl", trajectory_text.str()},
      {"report.json", report->dump(2) + "\n"},
      {"report.html", render_html(*report, *trajectory, in.patch_diff)},
  };
  if (in.environment_freeze)
    files.emplace_back(detail::environment_name, detail::render_environment(*in.environment_freeze));
  for (const auto& v : in.verifiers) {
    if (v.capture.is_null()) continue;
    if (!detail::valid_evidence_id(v.plugin_id) || !v.capture.is_object())
      return core::fail(core::phase::run,
                        "bundle: the capture of verifier '" + v.plugin_id +
                            "' cannot be stored: expected a JSON object and an id usable as a directory name",
                        v.plugin_id);
    files.emplace_back(detail::evidence_file(v.plugin_id), v.capture.dump(2) + "\n");
  }
  for (const auto& [name, text] : files)
    if (auto w = staged->write(name, text); !w) return tl::unexpected(w.error());
  if (auto c = staged->copy("repo.tar", in.repo_archive); !c) return tl::unexpected(c.error());
  auto entries = hash_directory(staged->path());
  if (!entries) return tl::unexpected(entries.error());
  const std::string manifest = render_manifest(*entries);
  auto signature = sign_manifest(*key, manifest);
  if (!signature) return tl::unexpected(signature.error());
  if (auto w = staged->write(manifest_name, manifest); !w) return tl::unexpected(w.error());
  if (auto w = staged->write(signature_name, *signature); !w) return tl::unexpected(w.error());
  if (auto p = staged->publish(); !p) return tl::unexpected(p.error());

  bundle_summary s;
  s.dir = std::filesystem::absolute(dir).lexically_normal();
  s.verdict = (*report)["verdict"].get<std::string>();
  s.exit_code = exit_code_of(s.verdict);
  for (const auto& e : *entries) s.files.push_back(e.name);
  s.files.emplace_back(manifest_name);
  s.files.emplace_back(signature_name);
  s.key_fingerprint = key->pub.fingerprint();
  std::sort(s.files.begin(), s.files.end());
  auto facts = detail::pfs_facts(*report);  // the facts build_report recorded
  if (!facts) return tl::unexpected(facts.error());
  s.pfs = compute_pfs(*facts);
  return s;
}

}  // namespace r2r::report
