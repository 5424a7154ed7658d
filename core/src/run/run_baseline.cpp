// SPDX-License-Identifier: MIT
#include "run_baseline.hpp"

#include "readme_steps.hpp"
#include "run_environment.hpp"
#include "run_prepare.hpp"
#include "tree_copy.hpp"

#include <r2r/executor/action.hpp>

#include <fstream>

namespace r2r::run {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double step_timeout_s = 3600;

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  const auto nl = t.find_last_of('\n');
  std::string line = nl == std::string::npos ? t : t.substr(nl + 1);
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

stage_result failed(std::string message) {
  stage_result r;
  r.status = "failed";
  r.message = std::move(message);
  return r;
}

stage_result run_baseline(run_context& ctx) {
  const auto readme = extract_readme_commands(ctx.source_dir());
  std::error_code ec;
  fs::remove_all(ctx.workspace_dir(), ec);
  if (auto copied = copy_tree(ctx.source_dir(), ctx.workspace_dir()); !copied)
    return failed(copied.error().to_string());
  const fs::path dir = ctx.run_dir / "mode0";
  fs::create_directories(dir, ec);
  std::ofstream log(dir / "commands.log", std::ios::binary | std::ios::trunc);

  json steps = json::array();
  std::size_t runnable = 0;
  for (const auto& c : readme.commands) runnable += c.skipped.empty() ? 1 : 0;
  json baseline{{"readme", readme.readme}, {"commands", runnable}, {"ran", 0}, {"all_ran", false}};

  if (runnable > 0) {
    if (!ctx.sandbox.instance) return failed("no sandbox (the environment stage did not run)");
    auto created = ctx.sandbox.instance->call("create", sandbox_create_request(ctx));
    if (!created) return failed("cannot create the sandbox: " + created.error().message);
    const std::string id = created->value("sandbox_id", "");
    const std::string workdir = created->value("sandbox_workspace", "/workspace");
    std::size_t index = 0;
    for (const auto& c : readme.commands) {
      json step{{"command", c.command}, {"readme_line", c.line}};
      if (!c.skipped.empty()) {
        step["skipped"] = c.skipped;
        log << "# skipped (" << readme.readme << ":" << c.line << "): " << c.command << "\n#   " << c.skipped << "\n\n";
        steps.push_back(step);
        continue;
      }
      ++index;
      step["index"] = index;
      ctx.progress->stage_progress("execute",
                                   "step " + std::to_string(index) + "/" + std::to_string(runnable) + ": " + c.command);
      auto ran = ctx.sandbox.instance->call(
          "exec", json{{"sandbox_id", id},
                       {"command", c.command},
                       {"timeout_s", step_timeout_s},
                       {"workdir", workdir},
                       {"install", executor::is_package_install(c.command)}});  // the README's installs get the network
      log << "$ " << c.command << "    # " << readme.readme << ":" << c.line << "\n";
      if (!ran) {
        step["error"] = ran.error().message;
        log << "# the sandbox could not run it: " << ran.error().message << "\n\n";
        steps.push_back(step);
        baseline["failed"] = {
            {"index", index}, {"command", c.command}, {"why", "the sandbox could not run it: " + ran.error().message}};
        break;
      }
      const int code = ran->value("exit_code", -1);
      step["exit_code"] = code;
      step["seconds"] = ran->value("duration_ms", 0.0) / 1000.0;
      step["timed_out"] = ran->value("timed_out", false);
      step["oom_killed"] = ran->value("oom_killed", false);
      const std::string out = ran->value("stdout", ""), err = ran->value("stderr", "");
      log << out << (out.empty() || out.back() == '\n' ? "" : "\n") << err
          << (err.empty() || err.back() == '\n' ? "" : "\n") << "# exit " << code << " after "
          << step["seconds"].get<double>() << " s" << (step["timed_out"].get<bool>() ? " (timed out)" : "")
          << (step["oom_killed"].get<bool>() ? " (out of memory)" : "") << "\n\n";
      steps.push_back(step);
      if (code != 0) {
        std::string why = "exit " + std::to_string(code);
        if (step["timed_out"].get<bool>()) why = "timed out after " + std::to_string(int(step_timeout_s)) + " s";
        if (step["oom_killed"].get<bool>()) why = "killed: out of memory";
        const std::string tail = last_line(err.empty() ? out : err);
        if (!tail.empty()) why += ": " + tail;
        baseline["failed"] = {{"index", index}, {"command", c.command}, {"why", why}};
        break;
      }
      baseline["ran"] = index;
    }
    ctx.sandbox.instance->call("destroy", json{{"sandbox_id", id}});
  }
  log.close();
  baseline["all_ran"] = runnable > 0 && !baseline.contains("failed");
  baseline["steps"] = steps;
  baseline["sandbox"] = ctx.sandbox.plugin_id;
  baseline["image"] = ctx.sandbox.image;
  baseline["gpu"] = ctx.gpu ? json(ctx.gpu->gpu.gfx) : json(nullptr);
  std::string message;
  if (readme.readme.empty()) {
    message = "mode 0: the repository has no README.md with commands to follow";
  } else if (runnable == 0) {
    message = "mode 0: " + readme.readme + " has no shell commands to follow";
  } else if (baseline.contains("failed")) {
    const auto& f = baseline["failed"];
    message = "mode 0: step " + std::to_string(f["index"].get<std::size_t>()) + "/" + std::to_string(runnable) +
              " failed: " + f["command"].get<std::string>() + " (" + f["why"].get<std::string>() + ")";
  } else {
    message = "mode 0: all " + std::to_string(runnable) + " steps ran";
  }
  baseline["message"] = message;
  if (auto w = write_atomically(dir / "steps.json", baseline.dump(2) + "\n"); !w) return failed(w.error().to_string());
  ctx.baseline = baseline;
  stage_result r;
  r.message = message;
  r.results = json{{"commands", runnable}, {"ran", baseline["ran"]}, {"all_ran", baseline["all_ran"]}};
  if (baseline.contains("failed")) r.results["failed"] = baseline["failed"];
  r.outputs = {"mode0/steps.json", "mode0/commands.log"};
  return r;
}

}  // namespace

stage_step baseline_step() {
  stage_step s;
  s.name = "execute";
  s.run = run_baseline;
  s.restore = [](run_context& ctx, const json&) -> core::result<void> {
    auto baseline = read_json(ctx.run_dir / "mode0" / "steps.json");
    if (!baseline) return tl::unexpected(baseline.error());
    ctx.baseline = std::move(*baseline);
    return {};
  };
  return s;
}

}  // namespace r2r::run
