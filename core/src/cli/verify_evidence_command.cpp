// SPDX-License-Identifier: MIT
// `repo2rocm verify-evidence --plan plan.json EVIDENCE_DIR`: the Mode 1 verdict of raw stored
// evidence, re-judged by the verifier plugins (their `judge` method), running nothing. EVIDENCE_DIR
// is one verifier's directory (holding capture.json: RUN_DIR/evidence/<id>/ or a bundle's) or the
// evidence/ directory above several.
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "verifier_judge.hpp"

#include <algorithm>
#include <cstdlib>
#include <ostream>

namespace r2r::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

}  // namespace

int run_verify_evidence(const cli_context& ctx) {
  const auto plan_file = ctx.option("plan");
  if (ctx.words.size() != 1 || plan_file.empty()) {
    *ctx.err << "repo2rocm verify-evidence: expected --plan plan.json and one evidence directory\n"
             << "usage: repo2rocm verify-evidence --plan plan.json EVIDENCE_DIR [--mode 1|2] [--json]\n";
    return exit_usage;
  }
  const fs::path root = fs::absolute(ctx.words[0]).lexically_normal();
  std::vector<fs::path> dirs;
  if (fs::is_regular_file(root / "capture.json")) {
    dirs.push_back(root);
  } else if (fs::is_directory(root)) {
    for (const auto& e : fs::directory_iterator(root))
      if (e.is_directory() && fs::is_regular_file(e.path() / "capture.json")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
  }
  if (dirs.empty())
    return report_error(
        ctx,
        core::error{core::phase::usage,
                    root.string() + " holds no capture.json: pass RUN_DIR/evidence, a bundle's evidence/ or one "
                                    "verifier's directory under it"},
        exit_usage);
  const int mode = ctx.option("mode").empty() ? 1 : std::atoi(ctx.option("mode").c_str());
  if (mode != 1 && mode != 2)
    return report_error(ctx, core::error{core::phase::usage, "--mode must be 1 or 2 for stored evidence"}, exit_usage);
  auto plan = run::read_json_object(plan_file);
  if (!plan) return report_error(ctx, plan.error(), exit_usage);
  auto registry = core::plugin_registry::load(ctx.search_path());
  if (!registry) return report_error(ctx, registry.error(), exit_error);
  auto judged = run::judge_evidence(*registry, dirs, *plan, mode);
  if (!judged) return report_error(ctx, judged.error(), exit_error);
  const std::string verdict = (*judged)["verdict"].get<std::string>();
  const json& results = (*judged)["results"];
  if (ctx.json) {
    json verifiers = json::array();
    for (const auto& r : results)
      verifiers.push_back(json{{"id", r["id"]},
                               {"evidence", r["evidence"]},
                               {"verdict", r["response"].value("verdict", "")},
                               {"summary", r["response"].value("summary", "")},
                               {"checks", r["response"].value("checks", json::array())},
                               {"metrics", r["response"].value("metrics", json::object())}});
    *ctx.out << json{{"verdict", verdict}, {"verifiers", verifiers}}.dump(2) << "\n";
    return exit_ok;
  }
  for (const auto& r : results) {
    const auto& resp = r["response"];
    *ctx.out << r["evidence"].get<std::string>() << " judged by " << r["id"].get<std::string>() << ": "
             << resp.value("verdict", "") << " (" << resp.value("summary", "") << ")\n";
    for (const auto& c : resp.value("checks", json::array()))
      *ctx.out << "  " << c.value("status", "") << "  " << c.value("name", "") << ": " << c.value("detail", "") << "\n";
  }
  *ctx.out << "evidence verdict: " << verdict << "\n";
  return exit_ok;
}

}  // namespace r2r::cli
