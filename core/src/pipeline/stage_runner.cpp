// SPDX-License-Identifier: MIT
#include <r2r/core/stage_runner.hpp>

#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <optional>

namespace r2r::core {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json describe_outputs(const fs::path& run_dir, const std::vector<std::string>& outputs) {
  json list = json::array();
  for (const auto& rel : outputs) {
    std::error_code ec;
    const fs::path p = run_dir / rel;
    if (fs::is_directory(p, ec)) {
      list.push_back({{"path", rel}, {"kind", "dir"}});
    } else {
      list.push_back({{"path", rel}, {"kind", "file"}, {"bytes", fs::file_size(p, ec)}});
    }
  }
  return list;
}

bool write_marker(const fs::path& run_dir, const std::string& stage, const stage_output& out) {
  const fs::path file = stage_runner::marker(run_dir, stage);
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream stream(tmp, std::ios::binary | std::ios::trunc);
    stream << json{{"stage", stage},
                   {"status", "ok"},
                   {"outputs", describe_outputs(run_dir, out.outputs)},
                   {"results", out.results}}
                  .dump(2)
           << "\n";
    stream.close();
    if (!stream) return false;
  }
  fs::rename(tmp, file, ec);
  return !ec;
}

/// The marker's results when the marker is complete and every output is still there unchanged.
std::optional<json> valid_marker(const fs::path& run_dir, const std::string& stage) {
  std::ifstream in(stage_runner::marker(run_dir, stage));
  if (!in) return std::nullopt;
  const json m = json::parse(in, nullptr, false);
  if (!m.is_object() || m.value("status", "") != "ok" || !m.contains("outputs") || !m["outputs"].is_array())
    return std::nullopt;
  for (const auto& o : m["outputs"]) {
    std::error_code ec;
    const fs::path p = run_dir / o.value("path", "");
    if (o.value("kind", "") == "dir") {
      if (!fs::is_directory(p, ec)) return std::nullopt;
    } else if (!fs::is_regular_file(p, ec) || fs::file_size(p, ec) != o.value("bytes", std::uintmax_t{0})) {
      return std::nullopt;
    }
  }
  return m.value("results", json::object());
}

fs::path run_dir_of(const sequence_options& options) {
  return options.run_dir ? options.run_dir() : fs::path();
}

}  // namespace

void stage_runner::on(const std::string& stage, handler h, restorer r) {
  handlers_[stage] = entry{std::move(h), std::move(r)};
}

fs::path stage_runner::marker(const fs::path& run_dir, const std::string& stage) {
  return run_dir / ".r2r" / "stages" / (stage + ".json");
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
    stage_context ctx{group, session, state, report.output};
    auto done = it->second.run(ctx);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.ok = done.has_value();
    report.status = report.ok ? "ok" : "failed";
    if (!done) report.error = done.error().to_string();
    spdlog::info("stage {} ({} plugin(s)) {} in {:.3f}s", group.stage, group.members.size(),
                 report.ok ? "finished" : "failed", report.seconds);
    reports.push_back(std::move(report));
    if (!done) break;
  }
  return reports;
}

std::vector<stage_report> stage_runner::run_sequence(pipeline_session& session, const std::vector<std::string>& order,
                                                     nlohmann::json& state, const sequence_options& options) const {
  std::vector<stage_report> reports;
  const auto drop_markers_from = [&](std::size_t first) {
    const fs::path dir = run_dir_of(options);
    if (dir.empty()) return;
    for (std::size_t i = first; i < order.size(); ++i) {
      std::error_code ec;
      fs::remove(marker(dir, order[i]), ec);
    }
  };
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::string& name = order[i];
    stage_group group{name, {}};
    for (const auto& m : session.stages())
      if (m.stage->stage == name) group.members.push_back(m);
    stage_report report;
    report.stage = name;
    for (const auto& m : group.members) report.members.push_back(m.stage->name);
    if (options.started) options.started(name);
    const auto start = std::chrono::steady_clock::now();
    const auto finish = [&](std::string status) {
      report.status = std::move(status);
      report.ok = report.status == "ok" || report.status == "skipped" || report.status == "resumed";
      report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      spdlog::info("stage {} {} in {:.3f}s", name, report.status, report.seconds);
      if (options.finished) options.finished(report);
      reports.push_back(report);
      return report.ok;
    };

    auto it = handlers_.find(name);
    const fs::path dir = run_dir_of(options);
    if (it != handlers_.end() && it->second.restore && !dir.empty()) {
      if (auto results = valid_marker(dir, name)) {
        if (auto restored = it->second.restore(*results); restored) {
          report.output.message = "outputs of an earlier run are complete";
          report.output.results = *results;
          finish("resumed");
          continue;
        }
      }
    }
    drop_markers_from(i);
    if (session.cancel() && session.cancel()->cancelled()) {
      report.error = "cancelled before stage '" + name + "'";
      report.output.message = report.error;
      finish("failed");
      break;
    }
    if (it == handlers_.end()) {
      report.error = "stage '" + name + "' has no handler in this build of repo2rocm";
      report.output.message = report.error;
      finish("unavailable");
      break;
    }
    result<void> done;
    try {
      stage_context ctx{group, session, state, report.output};
      done = it->second.run(ctx);
    } catch (const std::exception& e) {
      done = fail(phase::run, std::string("internal error: ") + e.what());
    }
    if (!done) {
      report.error = done.error().to_string();
      report.usage = done.error().where == phase::usage;
      // Handlers state their failures for people in the error's message (phase run or usage).
      report.output.message = done.error().message;
      finish("failed");
      break;
    }
    const fs::path written = run_dir_of(options);
    if (it->second.restore && !written.empty() && !write_marker(written, name, report.output)) {
      report.error = "cannot write the stage marker " + marker(written, name).string();
      report.output.message = report.error;
      finish("failed");
      break;
    }
    if (!finish(report.output.skipped ? "skipped" : "ok")) break;
  }
  return reports;
}

}  // namespace r2r::core
