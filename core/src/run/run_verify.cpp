// SPDX-License-Identifier: MIT
// The verify stage of `repo2rocm run`: the run pipeline's verify stages, in file order, against a
// fresh sandbox (of the run's one sandbox instance) on the executor's final workspace. The verifiers re-run the plan's
// workload themselves; nothing the agent printed is read. Their responses go to RUN_DIR/verify.json for the bundle
// stage, each verifier's raw evidence (the response's `capture`) to RUN_DIR/evidence/<verifier id>/capture.json, where
// the bundle takes it from and `repo2rocm verify-evidence` re-judges it.
#include "run_rebuild.hpp"
#include "run_stages.hpp"

#include <r2r/core/pipeline_session.hpp>
#include <r2r/report/bundle.hpp>

#include <fstream>

namespace r2r::run {
namespace {

using nlohmann::json;

json device_of(const run_context& ctx) {
  if (!ctx.gpu) return json{{"vendor", "none"}};
  json d{{"vendor", "amd"}, {"index", ctx.gpu->gpu.index}};
  if (!ctx.options.arch.empty()) d["arch"] = ctx.options.arch;
  return d;
}

/// Writes `capture` to RUN_DIR/evidence/<id>/capture.json (whole or not at all); returns the path
/// relative to the run directory, or "" when it cannot be stored.
std::string store_capture(const run_context& ctx, const std::string& id, const json& capture) {
  if (id.empty() || id.find('/') != std::string::npos || id == "." || id == "..") return {};
  const auto dir = ctx.run_dir / "evidence" / id;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return {};
  const auto tmp = dir / "capture.json.tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << capture.dump(2) << "\n";
    if (!out.flush()) return {};
  }
  std::filesystem::rename(tmp, dir / "capture.json", ec);
  return ec ? std::string() : "evidence/" + id + "/capture.json";
}

std::string to_status(const std::string& verdict) {
  if (verdict == "pass") return "verified";
  if (verdict == "no_device") return "no_device";
  return "not_verified";
}

/// Sets ctx.verdict, writes RUN_DIR/verify.json and fills the stage result.
stage_result finish(run_context& ctx, stage_result r, run_verdict verdict, const std::string& combined) {
  const json environment = verdict.details.value("environment", json::object());
  ctx.verdict = verdict;
  const auto file = ctx.run_dir / "verify.json";
  const auto tmp = ctx.run_dir / "verify.json.tmp";
  std::ofstream(tmp) << verdict.details.dump(2) << "\n";
  std::filesystem::rename(tmp, file);
  r.message = (verdict.status == "not_verified" && combined != "fail" ? std::string("not_verified") : combined) +
              (verdict.message.empty() ? "" : ": " + verdict.message);
  r.results = json{{"verdict", combined},
                   {"failed_checks", verdict.failed_checks},
                   {"environment", environment.value("status", std::string())},
                   {"environment_image", environment.value("image", std::string())}};
  if (environment.contains("probe")) r.results["environment_probe"] = environment["probe"];
  r.outputs = {"verify.json"};
  if (std::filesystem::exists(ctx.run_dir / "evidence")) r.outputs.push_back("evidence");
  if (std::filesystem::exists(ctx.run_dir / "verify")) r.outputs.push_back("verify");
  return r;
}

}  // namespace

stage_result run_verify(run_context& ctx) {
  stage_result r;
  core::plugin_instance* box = ctx.sandbox.instance;
  if (box == nullptr) {
    r.status = "failed";
    r.message = "no sandbox (the environment stage did not run)";
    return r;
  }
  std::vector<core::pipeline_session::stage_member> verifiers;
  for (const auto& m : ctx.session->stages())
    if (m.stage->stage == "verify") verifiers.push_back(m);
  if (verifiers.empty()) {
    r.status = "failed";
    r.message =
        "the pipeline has no `verify` stage, and no verdict is given without one; add "
        "r2r.verifier.mode1-rocm (configs/pipelines/run.json)";
    return r;
  }
  // The verdict is given on the environment that ships: the bundle's Dockerfile, rebuilt.
  const rebuild_result env = rebuild_environment(ctx);
  ctx.progress->stage_progress("verify", env.message);
  if (env.status == "not_reproducible" && env.image.empty()) {
    // Nothing was built: no verifier runs on an environment that does not ship.
    run_verdict verdict;
    verdict.status = "not_verified";
    verdict.message = env.message;
    verdict.failed_checks.push_back("environment.reproducible: " + env.message);
    verdict.details = json{{"verdict", "fail"}, {"verifiers", json::array()}, {"environment", env.record}};
    return finish(ctx, r, std::move(verdict), "fail");
  }
  json create = sandbox_create_request(ctx);
  create["network"] = "none";  // the verdict is given on a workload that reaches nothing outside
  if (!env.image.empty()) create["image"] = env.image;
  const auto final_workspace = ctx.run_dir / "execute" / "workspace";
  if (std::filesystem::exists(final_workspace)) create["workspace"] = final_workspace.string();
  auto created = box->call("create", create);
  if (!created) {
    r.status = "failed";
    r.message = "cannot create the verification sandbox: " + created.error().to_string();
    return r;
  }
  const std::string id = created->at("sandbox_id").get<std::string>();
  json sandbox_ref{{"id", id}, {"workdir", created->value("sandbox_workspace", std::string("/workspace"))}};
  if (!env.image.empty()) {
    sandbox_ref["image"] = env.image;
  } else if (!ctx.sandbox.image.empty()) {
    sandbox_ref["image"] = ctx.sandbox.image;
  }

  json responses = json::array();
  json earlier = json::array();
  std::vector<std::string> verdicts;
  run_verdict verdict;
  for (const auto& member : verifiers) {
    json request{{"plan", ctx.plan},
                 {"mode", ctx.options.mode},
                 {"sandbox", sandbox_ref},
                 {"device", device_of(ctx)},
                 {"earlier", earlier}};
    ctx.progress->stage_progress("verify", member.stage->name + " (" + member.stage->plugin.use + ")");
    auto response = member.instance->call("verify", request);
    json answer = response ? *response
                           : json{{"verdict", "error"},
                                  {"summary", response.error().to_string()},
                                  {"checks", json::array({json{{"name", "verifier_ran"},
                                                               {"status", "fail"},
                                                               {"detail", response.error().to_string()}}})}};
    verdicts.push_back(answer.value("verdict", std::string("error")));
    for (const auto& c : answer.value("checks", json::array()))
      if (c.value("status", "") == "fail")
        verdict.failed_checks.push_back(member.stage->name + "." + c.value("name", "") + ": " + c.value("detail", ""));
    if (verdict.message.empty() || answer.value("verdict", "") != "pass")
      verdict.message = answer.value("summary", std::string());
    earlier.push_back(answer);
    json entry{{"plugin_id", member.instance->info().id},
               {"version", member.instance->info().version},
               {"stage", member.stage->name}};
    if (answer.contains("capture") && answer["capture"].is_object()) {
      entry["evidence"] = store_capture(ctx, member.instance->info().id, answer["capture"]);
      answer.erase("capture");
    }
    entry["response"] = answer;
    responses.push_back(std::move(entry));
  }
  (void)box->call("destroy", json{{"sandbox_id", id}});

  const std::string combined = report::combine_verdicts(verdicts);
  verdict.status = to_status(combined);
  if (env.status == "not_reproducible") {  // built, but the workload fails only there
    verdict.status = "not_verified";
    verdict.message = env.message;
    verdict.failed_checks.insert(verdict.failed_checks.begin(), "environment.reproducible: " + env.message);
  }
  verdict.details = json{{"verdict", combined}, {"verifiers", responses}, {"environment", env.record}};
  return finish(ctx, r, std::move(verdict), combined);
}

}  // namespace r2r::run
