// SPDX-License-Identifier: MIT
// verify_bundle(): signature and integrity first, then the contents, the verdict, the stored
// evidence re-judged, and everything report.json derives, recomputed from the bundle's sources
// (bundle_checks.hpp).
#include "bundle_checks.hpp"
#include "bundle_render.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/json_schema.hpp>
#include <r2r/report/bundle.hpp>
#include <r2r/report/trajectory.hpp>

#include <fstream>
#include <sstream>

namespace r2r::report {
namespace detail {

tl::unexpected<core::error> bundle_error(const std::filesystem::path& dir, const std::string& file,
                                         const std::string& message) {
  return core::fail(core::phase::io, file + ": " + message, "", (dir / file).string());
}

}  // namespace detail

namespace {

using detail::bundle_error;
using nlohmann::json;

core::result<std::string> read_text(const std::filesystem::path& dir, const std::string& name) {
  std::ifstream in(dir / name, std::ios::binary);
  if (!in) return bundle_error(dir, name, "cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

core::result<json> read_json(const std::filesystem::path& dir, const std::string& name) {
  auto text = read_text(dir, name);
  if (!text) return tl::unexpected(text.error());
  try {
    return json::parse(*text);
  } catch (const json::parse_error& e) {
    return bundle_error(dir, name, std::string("is not valid JSON: ") + e.what());
  }
}

core::result<void> check_schema(const std::filesystem::path& dir, const json& report, std::vector<std::string>& notes) {
  const auto* schema = core::embedded_schema("report.schema.json");
  if (schema == nullptr)
    return core::fail(core::phase::schema, "report.schema.json is not embedded in this binary; rebuild repo2rocm");
  const auto violations = schema->validate(report);
  if (!violations.empty()) {
    std::string all;
    for (const auto& v : violations) all += "\n  " + core::format_violation(v);
    return bundle_error(dir, "report.json", "does not match configs/schema/report.schema.json:" + all);
  }
  notes.push_back("schema: report.json is valid against report.schema.json");
  return {};
}

core::result<detail::bundle_files> read_files(const std::filesystem::path& dir) {
  detail::bundle_files b;
  b.dir = dir;
  auto report = read_json(dir, "report.json");
  if (!report) return tl::unexpected(report.error());
  b.report = std::move(*report);
  auto plan = read_json(dir, "plan.json");
  if (!plan) return tl::unexpected(plan.error());
  if (!plan->is_object() || !plan->contains("repository") || !(*plan)["repository"].is_object())
    return bundle_error(dir, "plan.json", "has no repository object");
  b.plan = std::move(*plan);
  auto trajectory_text = read_text(dir, "trajectory.jsonl");
  if (!trajectory_text) return tl::unexpected(trajectory_text.error());
  auto trajectory = parse_trajectory(*trajectory_text, "trajectory.jsonl");
  if (!trajectory) return bundle_error(dir, "trajectory.jsonl", trajectory.error().message);
  b.trajectory = std::move(*trajectory);
  for (auto [field, name] : {std::pair{&b.commands_log, "commands.log"}, std::pair{&b.patch_diff, "patch.diff"},
                             std::pair{&b.dockerfile, "Dockerfile"}, std::pair{&b.html, "report.html"}}) {
    auto text = read_text(dir, name);
    if (!text) return tl::unexpected(text.error());
    *field = std::move(*text);
  }
  const std::string env(detail::environment_name);
  if (std::filesystem::exists(dir / env)) {
    auto text = read_text(dir, env);
    if (!text) return tl::unexpected(text.error());
    b.environment = detail::parse_environment(*text);
  }
  return b;
}

}  // namespace

core::result<verify_outcome> verify_bundle(const std::filesystem::path& dir, const verify_options& options) {
  if (!std::filesystem::is_directory(dir))
    return core::fail(core::phase::usage, dir.string() + " is not a directory; pass the bundle directory a run wrote",
                      "", dir.string());
  verify_outcome out;
  auto signer = detail::check_integrity(dir, options, out.notes);
  if (!signer) return tl::unexpected(signer.error());
  out.signer = *signer;
  auto files = read_files(dir);
  if (!files) return tl::unexpected(files.error());
  if (auto r = check_schema(dir, files->report, out.notes); !r) return tl::unexpected(r.error());
  if (auto r = detail::check_contents(*files, out.notes); !r) return tl::unexpected(r.error());
  if (auto r = detail::check_verdict(*files, out.notes); !r) return tl::unexpected(r.error());
  auto responses = detail::judged_responses(*files, options, out.notes);
  if (!responses) return tl::unexpected(responses.error());
  auto score = detail::check_rebuilt(*files, *responses, out.notes);
  if (!score) return tl::unexpected(score.error());
  out.verdict = files->report["verdict"];
  out.pfs = *score;
  return out;
}

}  // namespace r2r::report
