// SPDX-License-Identifier: MIT
#include "run_rebuild.hpp"

#include "run_environment.hpp"

#include <r2r/report/bundle.hpp>
#include <r2r/report/sha256.hpp>
#include <r2r/report/trajectory.hpp>

#include <fstream>
#include <sstream>

namespace r2r::run {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

/// The last non-empty line of `text`, at most 300 characters.
std::string last_line(const std::string& text) {
  auto end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return {};
  const auto start = text.rfind('\n', end);
  std::string line =
      text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
  return line.size() > 300 ? line.substr(0, 300) : line;
}

rebuild_result not_reproducible(rebuild_result r, const std::string& why) {
  r.status = "not_reproducible";
  r.message = "environment not reproducible: " + why;
  r.record["status"] = r.status;
  r.record["reason"] = why;
  return r;
}

/// The executor's last run_workload that the guards allowed and that exited 0: {turn, command}.
json last_good_workload(const std::vector<json>& trajectory) {
  json found;
  for (const auto& rec : trajectory) {
    const auto& a = rec.value("action", json::object());
    if (!a.is_object() || a.value("type", "") != "run_workload" || !a.contains("command")) continue;
    if (rec.value("/decision/decision"_json_pointer, std::string("allow")) != "allow") continue;
    const auto& o = rec.value("observation", json::object());
    if (!o.is_object() || o.value("timed_out", false) || !o.contains("exit_code") || o["exit_code"] != 0) continue;
    found = json{{"turn", rec.value("turn", 0)}, {"command", a["command"]}};
  }
  return found;
}

/// Builds RUN_DIR/verify/context from the run's files; returns the Dockerfile text.
core::result<std::string> write_context(const run_context& ctx, const std::vector<json>& trajectory,
                                        const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) return core::fail(core::phase::io, "cannot create " + dir.string() + ": " + ec.message());
  const std::string patch = read_text(ctx.run_dir / "patch.diff");
  std::string dockerfile;
  try {
    dockerfile = report::render_bundle_dockerfile(ctx.plan, trajectory, !patch.empty());
  } catch (const json::exception& e) {
    return core::fail(core::phase::config, std::string("the plan cannot be rendered into a Dockerfile: ") + e.what());
  }
  std::ofstream(dir / "Dockerfile", std::ios::binary) << dockerfile;
  if (!patch.empty()) std::ofstream(dir / "patch.diff", std::ios::binary) << patch;
  fs::create_hard_link(ctx.run_dir / "repo.tar", dir / "repo.tar", ec);
  if (ec) {
    ec.clear();
    fs::copy_file(ctx.run_dir / "repo.tar", dir / "repo.tar", ec);
  }
  if (ec)
    return core::fail(core::phase::io, "cannot put RUN_DIR/repo.tar into the rebuild context: " + ec.message() +
                                           "; run the plan stage again");
  return dockerfile;
}

}  // namespace

rebuild_result rebuild_environment(run_context& ctx) {
  rebuild_result r;
  core::plugin_instance* box = ctx.sandbox.instance;
  if (ctx.sandbox.image.empty()) {
    r.status = "not_rebuilt";
    r.message = "the environment was not rebuilt: the " + ctx.sandbox.plugin_id +
                " sandbox runs this host's binaries and has no image; the verdict is given in that environment";
    r.record = json{{"status", r.status}, {"reason", r.message}};
    return r;
  }
  auto trajectory = report::read_trajectory(ctx.run_dir / "execute" / "trajectory.jsonl");
  if (!trajectory)
    return not_reproducible(r, "the executor's trajectory cannot be read: " + trajectory.error().message);
  const fs::path context = ctx.run_dir / "verify" / "context";
  auto dockerfile = write_context(ctx, *trajectory, context);
  if (!dockerfile) return not_reproducible(r, dockerfile.error().message);
  r.record["dockerfile_sha256"] = report::sha256_hex(*dockerfile);
  r.record["installs"] = report::successful_installs(*trajectory).size();
  ctx.progress->stage_progress("verify", "rebuilding the environment from the bundle's Dockerfile");
  auto built = box->call("image_build", json{{"context_dir", context.string()}, {"network", true}, {"nocache", true}});
  if (!built)
    return not_reproducible(r, "the bundle's Dockerfile does not rebuild: " + first_line(built.error().message));
  r.image = built->value("image", "");
  r.record["image"] = r.image;
  r.record["network"] = built->value("network", "");

  const json workload = last_good_workload(*trajectory);
  if (workload.is_null()) {
    r.status = "rebuilt";
    r.message = "environment rebuilt from the bundle's Dockerfile as " + r.image.substr(0, 19) +
                " (the executor never ran the workload to exit 0, so there is nothing to re-run in it)";
    r.record["status"] = r.status;
    return r;
  }
  // The workload that exited 0 in the executor's environment runs again in the rebuilt one.
  json create = sandbox_create_request(ctx);
  create["image"] = r.image;
  create["network"] = "none";
  const auto final_workspace = ctx.run_dir / "execute" / "workspace";
  if (fs::exists(final_workspace)) create["workspace"] = final_workspace.string();
  auto created = box->call("create", create);
  if (!created)
    return not_reproducible(r, "a sandbox of the rebuilt image cannot be created: " + created.error().message);
  const std::string id = created->at("sandbox_id").get<std::string>();
  const std::string command = workload["command"].get<std::string>();
  ctx.progress->stage_progress("verify", "re-running the workload in the rebuilt environment: " + command);
  auto ran = box->call("exec", json{{"sandbox_id", id}, {"command", command}});
  (void)box->call("destroy", json{{"sandbox_id", id}});
  json probe{{"turn", workload["turn"]}, {"command", command}};
  if (!ran) {
    r.record["probe"] = probe;
    return not_reproducible(r, "the workload cannot run in the rebuilt image: " + ran.error().message);
  }
  const int code = ran->value("exit_code", -1);
  probe["exit_code"] = code;
  probe["stdout_tail"] = last_line(ran->value("stdout", std::string()));
  probe["stderr_tail"] = last_line(ran->value("stderr", std::string()));
  r.record["probe"] = probe;
  if (code != 0 || ran->value("timed_out", false))
    return not_reproducible(
        r, "the workload `" + command + "` exited 0 in the executor's environment (turn " +
               std::to_string(workload["turn"].get<int>()) + ") but exits " + std::to_string(code) +
               " in the image rebuilt from the bundle's Dockerfile: " + probe["stderr_tail"].get<std::string>());
  r.status = "rebuilt";
  r.message =
      "environment rebuilt from the bundle's Dockerfile as " + r.image.substr(0, 19) + "; the workload exits 0 in it";
  r.record["status"] = r.status;
  return r;
}

}  // namespace r2r::run
