// SPDX-License-Identifier: MIT
#include "run_stages.hpp"

#include <chrono>
#include <fstream>
#include <optional>

namespace r2r::cli::run {
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

bool write_marker(const fs::path& run_dir, const std::string& stage, const stage_result& r) {
  const fs::path marker = stage_marker(run_dir, stage);
  std::error_code ec;
  fs::create_directories(marker.parent_path(), ec);
  const fs::path tmp = marker.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << json{{"stage", stage},
                {"status", r.status},
                {"outputs", describe_outputs(run_dir, r.outputs)},
                {"results", r.results}}
               .dump(2)
        << "\n";
    out.close();
    if (!out) return false;
  }
  fs::rename(tmp, marker, ec);
  return !ec;
}

/// The marker's results when the marker is complete and every output is still there unchanged.
std::optional<json> valid_marker(const fs::path& run_dir, const std::string& stage) {
  std::ifstream in(stage_marker(run_dir, stage));
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

void drop_markers_from(const fs::path& run_dir, const std::vector<stage_step>& steps, std::size_t first) {
  if (run_dir.empty()) return;
  for (std::size_t i = first; i < steps.size(); ++i) {
    std::error_code ec;
    fs::remove(stage_marker(run_dir, steps[i].name), ec);
  }
}

}  // namespace

fs::path stage_marker(const fs::path& run_dir, const std::string& stage) {
  return run_dir / ".r2r" / "stages" / (stage + ".json");
}

stages_outcome run_stages(run_context& ctx, const std::vector<stage_step>& steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& step = steps[i];
    ctx.progress->stage_started(step.name);
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };

    if (step.restore && !ctx.run_dir.empty()) {
      if (auto results = valid_marker(ctx.run_dir, step.name)) {
        if (auto restored = step.restore(ctx, *results); restored) {
          ctx.progress->stage_finished(step.name, "resumed", "outputs of an earlier run are complete", *results,
                                       elapsed());
          continue;
        }
      }
    }
    drop_markers_from(ctx.run_dir, steps, i);

    if (!step.run) {
      const std::string message = "not available in this build: " + step.unavailable_reason;
      ctx.progress->stage_finished(step.name, "unavailable", message, json::object(), elapsed());
      return {false, step.name, "unavailable", message, false};
    }
    stage_result r;
    try {
      r = step.run(ctx);
    } catch (const std::exception& e) {
      r.status = "failed";
      r.message = std::string("internal error: ") + e.what();
    }
    if (r.status == "ok" && step.restore && !ctx.run_dir.empty() && !write_marker(ctx.run_dir, step.name, r)) {
      r.status = "failed";
      r.message = "cannot write the stage marker " + stage_marker(ctx.run_dir, step.name).string();
    }
    ctx.progress->stage_finished(step.name, r.status, r.message, r.results, elapsed());
    if (r.status != "ok" && r.status != "skipped") return {false, step.name, r.status, r.message, r.usage};
  }
  return {true, {}, {}, {}, false};
}

}  // namespace r2r::cli::run
