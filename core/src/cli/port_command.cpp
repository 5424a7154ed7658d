// SPDX-License-Identifier: MIT
// `repo2rocm port SOURCE`: copies a local CUDA project to OUT/tree, runs the convert stages of the
// port pipeline on the copy (port_chain.cpp) and writes OUT/patch.diff and OUT/convert.json.
// The source is never written. OUT must be empty, absent, or the output of an earlier port.
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "port_job.hpp"
#include "port_pipeline.hpp"

#include "../report/atomic_dir.hpp"

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

/// Checks that OUT may be replaced: absent or empty, or an earlier port's output. Nothing is
/// removed here: the new output is staged beside OUT and replaces it in one rename (publish).
core::result<void> check_out(const fs::path& out) {
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec))
      return tl::unexpected(usage("--out " + out.string() + " exists and is not a directory"));
    const bool empty = fs::is_empty(out, ec);
    if (!empty && !fs::exists(out / "convert.json", ec)) {
      return tl::unexpected(usage("--out " + out.string() +
                                  " is not empty and holds no earlier port (no convert.json); choose another "
                                  "directory or empty it"));
    }
  }
  fs::create_directories(out.parent_path(), ec);
  if (ec) return core::fail(core::phase::io, "cannot create " + out.parent_path().string() + ": " + ec.message());
  return {};
}

std::int64_t count(const json& summary, const std::string& key) {
  return summary.value(key, std::int64_t{0});
}

void print_summary(std::ostream& out, const json& report, const fs::path& source, const fs::path& dir) {
  const json& s = report.at("summary");
  out << "repo2rocm port: " << source.string() << " -> " << dir.string() << "\n"
      << "  files:       " << count(s, "files_total") << " in the tree, " << count(s, "files_considered")
      << " handled by a converter: " << count(s, "converted") << " converted, " << count(s, "unchanged")
      << " unchanged, " << count(s, "error") << " with errors\n"
      << "  conversion:  " << count(s, "renamed") << " names renamed, " << count(s, "includes_rewritten")
      << " includes rewritten, " << count(s, "kernel_launches") << " kernel launches kept\n"
      << "  left for review: " << count(s, "diagnostics_error") << " errors, " << count(s, "diagnostics_warning")
      << " warnings, " << count(s, "diagnostics_note") << " notes (each with file:line:column in convert.json)\n"
      << "  hazards:     " << count(s, "hazards") << " (" << count(s, "hazards_error") << " errors, "
      << count(s, "hazards_warning") << " warnings, " << count(s, "hazards_note") << " notes)\n";
  std::map<std::string, std::map<std::string, int>> by_arch;
  for (const auto& b : report.at("builds")) by_arch[b.value("arch", "")][b.value("status", "")]++;
  for (const auto& [arch, statuses] : by_arch) {
    out << "  build " << arch << ":";
    const char* sep = " ";
    for (const auto& [status, n] : statuses) {
      out << sep << n << " " << status;
      sep = ", ";
    }
    out << "\n";
  }
  out << "  stages:";
  const char* sep = " ";
  for (const auto& stage : report.at("stages")) {
    out << sep << stage.value("name", "") << " " << stage.value("status", "") << " (" << std::fixed
        << std::setprecision(2) << stage.value("seconds", 0.0) << " s)";
    sep = ", ";
  }
  out << "\n";
  for (const auto& stage : report.at("stages")) {
    if (stage.value("status", "") != "ok") {
      out << "  note: stage " << stage.value("name", "") << " " << stage.value("status", "") << ": "
          << stage.value("message", "") << "\n";
    }
  }
  out << "  wrote " << (dir / "tree").string() << ", " << (dir / "patch.diff").string() << ", "
      << (dir / "convert.json").string() << "\n";
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
  auto opened = open_port_session(ctx, *parsed.config);
  if (!opened) {
    return report_error(ctx, opened.error(), opened.error().where == core::phase::config ? exit_usage : exit_error);
  }

  if (auto ready = check_out(out); !ready) {
    return report_error(ctx, ready.error(), ready.error().where == core::phase::usage ? exit_usage : exit_error);
  }
  // Written into OUT.tmp-XXXXXX and renamed over OUT when complete: a port killed at any point
  // leaves the earlier output (or none), never a torn one.
  auto staged = report::detail::staged_dir::create(out);
  if (!staged) return report_error(ctx, staged.error(), exit_error);
  port_job job;
  job.source = source;
  job.tree = staged->path() / "tree";
  job.patch_file = staged->path() / "patch.diff";
  job.report_file = staged->path() / "convert.json";
  job.out_dir = out;
  job.arch = *arch;
  job.rocm = ctx.rocm;
  job.pipeline_file = parsed.config->file.string();
  auto ported = port_tree(*opened->session, job);
  if (!ported)
    return report_error(ctx, ported.error(), ported.error().where == core::phase::config ? exit_usage : exit_error);
  if (auto published = staged->publish(); !published) return report_error(ctx, published.error(), exit_error);
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
    print_summary(*ctx.out, report, source, out);
  }
  return exit_ok;
}

}  // namespace r2r::cli
