// SPDX-License-Identifier: MIT
#include <r2r/core/stage_runner.hpp>

#include <spdlog/spdlog.h>

#include <chrono>

namespace r2r::core {

void stage_runner::on(const std::string& stage, handler h) {
  handlers_[stage] = std::move(h);
}

std::vector<stage_group> stage_runner::groups_of(const pipeline_session& session) {
  std::vector<stage_group> groups;
  for (const auto& member : session.stages()) {
    if (groups.empty() || groups.back().stage != member.stage->stage) groups.push_back({member.stage->stage, {}});
    groups.back().members.push_back(member);
  }
  return groups;
}

result<std::vector<stage_report>> stage_runner::run(pipeline_session& session, nlohmann::json& state) const {
  std::vector<stage_report> reports;
  for (const auto& group : groups_of(session)) {
    stage_report report;
    report.stage = group.stage;
    for (const auto& m : group.members) report.members.push_back(m.stage->name);
    if (session.cancel() && session.cancel()->cancelled()) {
      return fail(phase::run, "cancelled before stage '" + group.stage + "'");
    }
    auto it = handlers_.find(group.stage);
    if (it == handlers_.end()) {
      return fail(phase::run, "stage '" + group.stage + "' has no handler in this build of repo2rocm");
    }
    const auto start = std::chrono::steady_clock::now();
    stage_context ctx{group, session, state};
    auto done = it->second(ctx);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.ok = done.has_value();
    if (!done) report.error = done.error().to_string();
    spdlog::info("stage {} ({} plugin(s)) {} in {:.3f}s", group.stage, group.members.size(),
                 report.ok ? "finished" : "failed", report.seconds);
    reports.push_back(std::move(report));
    if (!done) break;
  }
  return reports;
}

}  // namespace r2r::core
