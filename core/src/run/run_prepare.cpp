// SPDX-License-Identifier: MIT
#include "run_prepare.hpp"

#include "plan_core.hpp"
#include "port_job.hpp"
#include "tree_copy.hpp"

#include <r2r/planning/intake.hpp>

#include <cctype>
#include <ctime>
#include <fstream>
#include <map>

namespace r2r::run {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

stage_result failed(std::string message) {
  stage_result r;
  r.status = "failed";
  r.message = std::move(message);
  return r;
}

std::string repo_name(const std::string& url) {
  std::string name = url;
  while (!name.empty() && (name.back() == '/' || name.back() == '\\')) name.pop_back();
  name = name.substr(name.find_last_of("/:\\") == std::string::npos ? 0 : name.find_last_of("/:\\") + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".git") == 0) name.resize(name.size() - 4);
  std::string safe;
  for (char c : name)
    safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return safe.empty() ? std::string("repo") : safe;
}

stage_result run_intake(run_context& ctx) {
  planning::intake_options io;
  io.commit = ctx.options.commit;
  io.cache_dir = ctx.options.cache_dir;
  auto intake = planning::acquire_repository(ctx.options.source, io);
  if (!intake) {
    auto r = failed(intake.error().to_string());
    r.usage = intake.error().where == core::phase::usage;
    return r;
  }
  const std::string repo = repo_name(intake->url);
  if (ctx.run_dir.empty()) {
    ctx.run_dir = fs::absolute(fs::path("runs") / default_run_name(repo, intake->commit));
    std::error_code ec;
    fs::create_directories(ctx.run_dir, ec);
    if (ec) return failed("cannot create the run directory " + ctx.run_dir.string() + ": " + ec.message());
    if (!ctx.progress->attach(ctx.run_dir / "events.jsonl"))
      return failed("cannot write " + (ctx.run_dir / "events.jsonl").string());
  }
  std::error_code ec;
  fs::remove_all(ctx.source_dir(), ec);
  auto copied = copy_tree(intake->worktree, ctx.source_dir());
  if (!copied) return failed(copied.error().to_string());
  ctx.intake = json{{"source", intake->source},
                    {"url", intake->url},
                    {"commit", intake->commit},
                    {"repo", repo},
                    {"files", copied->files.size()}};
  // Submodules that could not be fetched and unpinned directories reach the plan (notes and hazards).
  if (!intake->content_hash.empty()) ctx.intake["content_hash"] = intake->content_hash;
  for (const auto& n : intake->notes) {
    ctx.intake["notes"].push_back(json{{"kind", n.kind}, {"path", n.path}, {"detail", n.detail}});
  }
  stage_result r;
  r.message = repo + " @ " + intake->commit.substr(0, 12) + " (" + std::to_string(copied->files.size()) + " files)";
  r.results = ctx.intake;
  r.results["run_dir"] = ctx.run_dir.string();
  r.outputs = {"source"};
  return r;
}

stage_result run_plan_stage(run_context& ctx) {
  plan_request request;
  request.tree = ctx.source_dir();
  request.source = ctx.intake.value("source", "");
  request.url = ctx.intake.value("url", "");
  request.commit = ctx.intake.value("commit", "");
  request.arch = ctx.options.arch;
  request.base_image = ctx.options.base_image;
  request.state_dir = ctx.options.state_dir;
  for (const auto& m : ctx.session->stages())
    if (m.stage->stage == "rank" && request.ranker == nullptr) request.ranker = m.instance;
  request.paper = ctx.options.paper.string();
  request.earlier = ctx.run_dir;
  request.paper_model =
      ctx.session->resolve(paper_rank_instance);  // a resumed run reads the paper it downloaded before
  request.content_hash = ctx.intake.value("content_hash", "");
  for (const auto& n : ctx.intake.value("notes", json::array()))
    request.notes.push_back({n.value("kind", ""), n.value("path", ""), n.value("detail", "")});
  auto planned = make_plan(request);
  if (!planned) return failed(planned.error().to_string());
  if (auto written = write_plan_files(ctx.run_dir, *planned, ctx.source_dir()); !written)
    return failed(written.error().to_string());
  ctx.plan = planned->plan;
  ctx.fingerprint = planned->fingerprint_json;
  const json& plan = ctx.plan;
  stage_result r;
  const std::string base = plan.at("base_image").value("ref", "");
  const json& w = plan.at("workload");
  r.results = json{{"base_image", base},
                   {"arch", plan.value("arch", "")},
                   {"frameworks", planned->fp.frameworks},
                   {"workload", w.is_null() ? json(nullptr) : w.at("command")},
                   {"metric", plan.at("metric")},
                   {"hazards", plan.at("hazards").size()}};
  r.message = "base " + (base.empty() ? std::string("none") : base) + ", workload " +
              (w.is_null() ? std::string("none") : w.value("command", "")) + ", " +
              std::to_string(plan.at("hazards").size()) + " hazards";
  r.outputs = {"fingerprint.json", "plan.json", "Dockerfile", "repo.tar"};
  return r;
}

stage_result run_port_stage(run_context& ctx) {
  std::error_code ec;
  fs::remove_all(ctx.workspace_dir(), ec);
  port_job job;
  job.source = ctx.source_dir();
  job.tree = ctx.workspace_dir();
  job.patch_file = ctx.run_dir / "patch.diff";
  job.report_file = ctx.run_dir / "convert.json";
  if (!ctx.options.arch.empty()) job.arch = {ctx.options.arch};
  job.pipeline_file = ctx.pipeline->file.string();
  auto report = port_tree(*ctx.session, job);
  if (!report) return failed(report.error().to_string());
  ctx.convert = *report;
  const json& s = report->at("summary");
  std::map<std::string, std::map<std::string, int>> builds;
  for (const auto& b : report->at("builds")) builds[b.value("arch", "")][b.value("status", "")]++;
  std::string message = std::to_string(s.value("converted", 0)) + " files converted, " +
                        std::to_string(s.value("hazards", 0)) + " hazards";
  for (const auto& [arch, statuses] : builds) {
    message += "; build " + arch + ":";
    for (const auto& [status, n] : statuses) message += " " + std::to_string(n) + " " + status;
  }
  for (const auto& stage : report->at("stages")) {
    if (stage.value("status", "") != "ok")
      message += "; " + stage.value("name", "") + " " + stage.value("status", "") + ": " + stage.value("message", "");
  }
  stage_result r;
  r.message = message;
  r.results = json{{"summary", s}, {"builds", builds}, {"stages", report->at("stages")}};
  r.outputs = {"workspace", "patch.diff", "convert.json"};
  return r;
}

}  // namespace

std::string default_run_name(const std::string& repo, const std::string& commit) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  return repo + "-" + commit.substr(0, 12) + "-" + stamp;
}

core::result<void> write_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return core::fail(core::phase::io, "cannot write " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return core::fail(core::phase::io, "cannot rename " + tmp.string() + ": " + ec.message());
  return {};
}

core::result<json> read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return core::fail(core::phase::io, "cannot read " + path.string());
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) return core::fail(core::phase::io, path.string() + " is not valid JSON");
  return j;
}

stage_step intake_step() {
  stage_step s;
  s.name = "intake";
  s.run = run_intake;
  s.restore = [](run_context& ctx, const json& results) -> core::result<void> {
    if (!results.contains("commit") || !results.contains("url"))
      return core::fail(core::phase::io, "intake marker lacks commit or url");
    ctx.intake = results;
    ctx.intake.erase("run_dir");
    return {};
  };
  return s;
}

stage_step plan_step() {
  stage_step s;
  s.name = "plan";
  s.run = run_plan_stage;
  s.restore = [](run_context& ctx, const json&) -> core::result<void> {
    auto plan = read_json(ctx.run_dir / "plan.json");
    if (!plan) return tl::unexpected(plan.error());
    auto fp = read_json(ctx.run_dir / "fingerprint.json");
    if (!fp) return tl::unexpected(fp.error());
    ctx.plan = std::move(*plan);
    ctx.fingerprint = std::move(*fp);
    return {};
  };
  return s;
}

stage_step port_step() {
  stage_step s;
  s.name = "port";
  s.run = run_port_stage;
  s.restore = [](run_context& ctx, const json&) -> core::result<void> {
    auto report = read_json(ctx.run_dir / "convert.json");
    if (!report) return tl::unexpected(report.error());
    ctx.convert = std::move(*report);
    return {};
  };
  return s;
}

}  // namespace r2r::run
