// SPDX-License-Identifier: MIT
// `repo2rocm port SOURCE`: copies a local CUDA project to OUT/tree, runs the convert stages of the
// port pipeline on the copy (port_chain.cpp) and writes OUT/patch.diff and OUT/convert.json.
// The source is never written. OUT must be empty, absent, or the output of an earlier port.
#include "builtin_pipelines.hpp"
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "port_job.hpp"
#include "port_output.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <regex>
#include <set>
#include <sstream>

namespace r2r::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

core::error usage(std::string message) {
  return core::error{core::phase::usage, std::move(message)};
}

core::result<std::vector<std::string>> parse_arch(const std::string& text) {
  static const std::regex gfx("^gfx[0-9a-f]+(:[a-z0-9_]+[+-])*$");
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string arch = text.substr(start, comma - start);
    if (!std::regex_match(arch, gfx)) {
      return tl::unexpected(
          usage("--arch takes gfx targets separated by commas (e.g. gfx90a,gfx942); '" + arch + "' is not one"));
    }
    if (seen.insert(arch).second) out.push_back(arch);
    start = comma + 1;
  }
  return out;
}

bool inside(const fs::path& child, const fs::path& parent) {
  auto c = child.begin();
  for (auto p = parent.begin(); p != parent.end(); ++p, ++c) {
    if (c == child.end() || *c != *p) return false;
  }
  return true;
}

}  // namespace

int run_port(const cli_context& ctx) {
  if (ctx.words.size() != 1) {
    return report_error(ctx, usage("usage: repo2rocm port SOURCE [--arch gfx90a,gfx942] [--rocm VERSION] [--out DIR]"),
                        exit_usage);
  }
  const std::string& given = ctx.words[0];
  if (given.find("://") != std::string::npos || given.rfind("git@", 0) == 0) {
    return report_error(ctx,
                        usage("SOURCE must be a local directory; git URLs are not supported by this command yet "
                              "(clone the repository and pass its directory)"),
                        exit_usage);
  }
  std::error_code ec;
  const fs::path source = fs::weakly_canonical(fs::absolute(given), ec);
  if (ec || !fs::is_directory(source, ec)) {
    return report_error(ctx, usage("SOURCE '" + given + "' is not a directory"), exit_usage);
  }
  auto arch = parse_arch(ctx.arch);
  if (!arch) return report_error(ctx, arch.error(), exit_usage);
  static const std::regex version("^[0-9]+\\.[0-9]+(\\.[0-9]+)?$");
  if (!ctx.rocm.empty() && !std::regex_match(ctx.rocm, version)) {
    return report_error(ctx, usage("--rocm takes a ROCm release such as 6.2 or 6.2.1; found '" + ctx.rocm + "'"),
                        exit_usage);
  }
  const fs::path out = fs::weakly_canonical(
      fs::absolute(ctx.out_dir.empty() ? fs::current_path() / (source.filename().string() + "-rocm")
                                       : fs::path(ctx.out_dir)),
      ec);
  if (inside(out, source) || inside(source, out)) {
    return report_error(ctx,
                        usage("--out " + out.string() + " and SOURCE " + source.string() +
                              " must not contain each other; choose an output directory outside the project"),
                        exit_usage);
  }

  // The pipeline: --pipeline FILE, or the built-in copy of configs/pipelines/port.json.
  auto parsed = ctx.pipeline.empty()
                    ? core::parse_pipeline_text(generated::port_pipeline, "(built-in) configs/pipelines/port.json")
                    : core::parse_pipeline_file(ctx.pipeline);
  if (!parsed.config) {
    std::string message = "invalid pipeline:";
    for (const auto& p : parsed.problems) message += "\n  " + p.to_string();
    return report_error(ctx, core::error{core::phase::config, message}, exit_usage);
  }
  auto opened = run::open_port_session(
      ctx.search_path(parsed.config->search_paths,
                      ctx.pipeline.empty() ? std::string() : parsed.config->file.parent_path().string()),
      *parsed.config);
  if (!opened) {
    return report_error(ctx, opened.error(), opened.error().where == core::phase::config ? exit_usage : exit_error);
  }

  run::port_job job;
  job.source = source;
  job.out_dir = out;
  job.arch = *arch;
  job.rocm = ctx.rocm;
  job.pipeline_file = parsed.config->file.string();
  auto ported = run::port_to_out(*opened->session, job);
  if (!ported) {
    const auto where = ported.error().where;
    return report_error(ctx, ported.error(),
                        where == core::phase::config || where == core::phase::usage ? exit_usage : exit_error);
  }
  const json& report = *ported;

  if (ctx.json) {
    json brief{{"ok", true},
               {"source", source.string()},
               {"out", out.string()},
               {"tree", (out / "tree").string()},
               {"patch", (out / "patch.diff").string()},
               {"report", (out / "convert.json").string()},
               {"summary", report.at("summary")},
               {"stages", report.at("stages")}};
    *ctx.out << brief.dump(2) << "\n";
  } else {
    run::print_port_summary(*ctx.out, report, source, out);
  }
  return exit_ok;
}

}  // namespace r2r::cli
