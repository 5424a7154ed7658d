// SPDX-License-Identifier: MIT
// The bundle stage of `repo2rocm run`: the audit bundle (r2r::report::write_bundle) from the
// plan, the port's diff, the executor's trajectory and commands, the verifiers' responses in
// RUN_DIR/verify.json and their stored evidence (RUN_DIR/evidence/<id>/capture.json); then the
// written bundle is re-checked exactly as `repo2rocm verify` does, the evidence re-judged.
#include "run_stages.hpp"
#include "verifier_judge.hpp"

#include <r2r/report/bundle.hpp>
#include <r2r/report/signing.hpp>

#include <fstream>
#include <sstream>

namespace r2r::run {
namespace {

using nlohmann::json;

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Host-side steps of the run, from RUN_DIR/events.jsonl (one per finished stage).
std::vector<report::host_command> host_steps(const std::filesystem::path& events) {
  std::vector<report::host_command> out;
  std::ifstream in(events);
  std::string line;
  while (std::getline(in, line)) {
    const json e = json::parse(line, nullptr, false);
    if (!e.is_object() || e.value("event", "") != "stage_finished") continue;
    report::host_command c;
    c.command =
        "repo2rocm run: stage " + e.value("stage", std::string()) + " (" + e.value("status", std::string()) + ")";
    c.exit_code = e.value("status", std::string()) == "failed" ? 1 : 0;
    c.seconds = e.value("seconds", 0.0);
    out.push_back(c);
  }
  return out;
}

}  // namespace

stage_result run_bundle(run_context& ctx) {
  stage_result r;
  const json verify = json::parse(read_text(ctx.run_dir / "verify.json"), nullptr, false);
  if (!verify.is_object()) {
    r.status = "failed";
    r.message = "RUN_DIR/verify.json is missing or unreadable; run the verify stage again";
    return r;
  }
  report::bundle_inputs in;
  in.plan = ctx.plan;
  in.repo_archive = ctx.run_dir / "repo.tar";
  in.patch_diff = read_text(ctx.run_dir / "patch.diff");
  in.trajectory = ctx.run_dir / "execute" / "trajectory.jsonl";
  if (std::filesystem::exists(ctx.run_dir / "execute" / "commands.log"))
    in.commands_log = ctx.run_dir / "execute" / "commands.log";
  in.host_commands = host_steps(ctx.run_dir / "events.jsonl");
  for (const auto& v : verify.value("verifiers", json::array())) {
    report::verifier_result result{v.value("plugin_id", std::string()), v.value("version", std::string()),
                                   v.at("response"), nullptr};
    if (const std::string evidence = v.value("evidence", std::string()); !evidence.empty()) {
      result.capture = json::parse(read_text(ctx.run_dir / evidence), nullptr, false);
      if (!result.capture.is_object()) {
        r.status = "failed";
        r.message = "RUN_DIR/" + evidence + " is missing or damaged; run the verify stage again";
        return r;
      }
    }
    in.verifiers.push_back(std::move(result));
  }
  in.mode = ctx.options.mode;
  in.repo2rocm_version = R2R_VERSION;
  for (const auto& s : ctx.pipeline->stages)
    if (const auto* p = ctx.registry->find(s.plugin.use)) in.plugins.push_back({p->info.id, p->info.version});
  // The image the verdict was given on: the one rebuilt from the bundle's Dockerfile when there is one.
  const std::string verified_image = verify.value("/environment/image"_json_pointer, std::string());
  in.image_used = !verified_image.empty()     ? verified_image
                  : ctx.sandbox.image.empty() ? ctx.plan.value("/base_image/ref"_json_pointer, std::string())
                                              : ctx.sandbox.image;
  in.state_dir = ctx.options.state_dir;
  const auto dir = ctx.run_dir / "bundle";
  auto written = report::write_bundle(in, dir);
  if (!written) {
    r.status = "failed";
    r.message = "cannot write the audit bundle: " + written.error().to_string();
    return r;
  }
  report::verify_options trust;
  auto host = report::host_public_key(ctx.options.state_dir);
  if (host && *host) {
    trust.trusted_key = **host;
    trust.trusted_key_source = "this host's key";
  }
  trust.judge = registry_judge(*ctx.registry);
  auto checked = report::verify_bundle(dir, trust);
  if (!checked) {
    r.status = "failed";
    r.message = "the bundle just written does not verify: " + checked.error().to_string();
    return r;
  }
  r.message = "bundle " + dir.string() + " (" + std::to_string(written->files.size()) + " files, PFS " +
              std::to_string(written->pfs.score).substr(0, 5) + ", signed by " + written->key_fingerprint + ")";
  r.results = json{{"dir", dir.string()},
                   {"verdict", written->verdict},
                   {"pfs", written->pfs.score},
                   {"key", written->key_fingerprint}};
  r.outputs = {"bundle"};
  return r;
}

}  // namespace r2r::run
