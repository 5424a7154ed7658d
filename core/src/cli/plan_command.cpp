// SPDX-License-Identifier: MIT
// `repo2rocm plan SOURCE`: intake -> fingerprint -> rank (through the plugin registry, as the
// pipeline's `rank` stage) -> plan -> Dockerfile.
#include "cli_context.hpp"
#include "exit_codes.hpp"
#include "plan_output.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/planning/intake.hpp>
#include <r2r/planning/plan.hpp>

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <regex>

namespace r2r::cli {
namespace {

constexpr const char* default_ranker = "r2r.ranker.jaccard";

std::string option(const cli_context& ctx, const std::string& name) {
  auto it = ctx.options.find(name);
  return it == ctx.options.end() ? std::string() : it->second;
}

std::filesystem::path home_dir(const char* env, const char* xdg, const char* fallback, const char* leaf) {
  if (const char* v = std::getenv(env); v && *v) return v;
  if (const char* v = std::getenv(xdg); v && *v) return std::filesystem::path(v) / "repo2rocm" / leaf;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : "/tmp") / fallback / "repo2rocm" / leaf;
}

core::result<void> check_schema(const char* name, const nlohmann::json& doc) {
  const auto* schema = core::embedded_schema(name);
  if (schema == nullptr)
    return core::fail(core::phase::schema, std::string("schema ") + name + " is not embedded (build bug)");
  const auto violations = schema->validate(doc);
  if (violations.empty()) return {};
  return core::fail(core::phase::schema, std::string("internal error: the output violates ") + name + ": " +
                                             core::format_violation(violations.front()));
}

/// Calls `rank` on the pipeline's rank stage (--pipeline) or on r2r.ranker.jaccard with its example config.
core::result<nlohmann::json> rank(const cli_context& ctx, const nlohmann::json& request) {
  std::vector<std::string> pipeline_paths;
  std::string pipeline_dir;
  std::optional<core::pipeline_config> pipeline;
  if (!ctx.pipeline.empty()) {
    auto parsed = core::parse_pipeline_file(ctx.pipeline);
    if (!parsed.config) return core::fail(core::phase::config, parsed.problems.front().to_string(), {}, ctx.pipeline);
    pipeline = parsed.config;
    pipeline_paths = parsed.config->search_paths;
    pipeline_dir = parsed.config->file.parent_path().string();
  }
  auto registry = core::plugin_registry::load(ctx.search_path(pipeline_paths, pipeline_dir));
  if (!registry) return tl::unexpected(registry.error());
  if (pipeline) {
    auto session = core::pipeline_session::create(*pipeline, *registry);
    if (!session) return tl::unexpected(session.error());
    for (const auto& member : (*session)->stages()) {
      if (member.stage->stage == "rank") return member.instance->call("rank", request);
    }
    return core::fail(core::phase::config,
                      "the pipeline has no `rank` stage; add one (e.g. configs/pipelines/plan.json)", {}, ctx.pipeline);
  }
  const auto* plugin = registry->find(default_ranker);
  if (plugin == nullptr) {
    if (const auto* d = registry->find_disabled(default_ranker)) return tl::unexpected(d->reason);
    return core::fail(
        core::phase::registry,
        "the ranker plugin is not on the plugin path; `repo2rocm plugins list --kind ranker` shows what is "
        "installed, --plugin-path adds a directory",
        default_ranker);
  }
  auto instance = core::plugin_instance::create(*plugin, plugin->info.example_config);
  if (!instance) return tl::unexpected(instance.error());
  return (*instance)->call("rank", request);
}

}  // namespace

int run_plan(const cli_context& ctx) {
  if (ctx.words.size() != 1) {
    return report_error(
        ctx,
        core::error{core::phase::usage,
                    "usage: repo2rocm plan SOURCE [--commit REF] [--arch GFX] [--out DIR] [--base-image REF]"},
        exit_usage);
  }
  const auto& k = planning::builtin_knowledge();
  std::string arch = planning::normalise_name(option(ctx, "arch"));
  if (!arch.empty()) {
    arch = arch.substr(0, arch.find(':'));
    bool known = k.catalog.at("arches").contains(arch);
    for (const auto& [gfx, info] : k.catalog.at("arches").items()) {
      for (const auto& alias : info.value("aliases", nlohmann::json::array())) {
        if (!known && alias.get<std::string>() == arch) {
          arch = gfx;
          known = true;
        }
      }
    }
    if (!known && !std::regex_match(arch, std::regex("^gfx[0-9a-f]+$"))) {
      return report_error(ctx,
                          core::error{core::phase::usage,
                                      "--arch must be a gfx target such as gfx942 or an alias such as mi300x; found '" +
                                          option(ctx, "arch") + "'"},
                          exit_usage);
    }
  }
  planning::intake_options io;
  io.commit = option(ctx, "commit");
  io.cache_dir = option(ctx, "cache-dir").empty() ? home_dir("R2R_CACHE_DIR", "XDG_CACHE_HOME", ".cache", "repos")
                                                  : std::filesystem::path(option(ctx, "cache-dir"));
  if (!ctx.json && isatty(STDERR_FILENO)) io.progress = ctx.err;
  auto intake = planning::acquire_repository(ctx.words[0], io);
  if (!intake)
    return report_error(ctx, intake.error(), intake.error().where == core::phase::usage ? exit_usage : exit_error);

  planning::fingerprint fp = planning::scan_repository(intake->worktree, k);
  fp.source = intake->source;
  fp.url = intake->url;
  fp.commit = intake->commit;

  const std::filesystem::path state_dir = option(ctx, "state-dir").empty()
                                              ? home_dir("R2R_STATE_DIR", "XDG_STATE_HOME", ".local/state", "")
                                              : std::filesystem::path(option(ctx, "state-dir"));
  const auto request = planning::make_rank_request(fp, arch, k.catalog, {}, planning::load_image_failures(state_dir));
  auto ranking = rank(ctx, request);
  if (!ranking)
    return report_error(ctx, ranking.error(), ranking.error().where == core::phase::config ? exit_usage : exit_error);

  planning::plan_inputs in;
  in.fp = &fp;
  in.arch = arch;
  in.ranking = *ranking;
  in.base_image_override = option(ctx, "base-image");
  const nlohmann::json plan = planning::build_plan(in, k);
  const nlohmann::json fp_json = planning::to_json(fp);
  for (auto check : {check_schema("fingerprint.schema.json", fp_json), check_schema("plan.schema.json", plan)}) {
    if (!check) return report_error(ctx, check.error(), exit_error);
  }

  const std::filesystem::path out =
      option(ctx, "out").empty() ? std::filesystem::path("r2r-plan") : std::filesystem::path(option(ctx, "out"));
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec)
    return report_error(ctx, core::error{core::phase::io, "cannot create --out " + out.string() + ": " + ec.message()},
                        exit_error);
  for (auto written :
       {write_text(out / "fingerprint.json", fp_json.dump(2) + "\n"),
        write_text(out / "plan.json", plan.dump(2) + "\n"),
        write_text(out / "Dockerfile", planning::render_dockerfile(plan)), export_tree(intake->worktree, out)}) {
    if (!written) return report_error(ctx, written.error(), exit_error);
  }
  if (ctx.json) {
    *ctx.out << nlohmann::json{{"ok", true},
                               {"out", out.string()},
                               {"commit", fp.commit},
                               {"frameworks", fp.frameworks},
                               {"base_image", plan.at("base_image").at("ref")},
                               {"candidates", plan.at("candidates")},
                               {"workload", plan.at("workload")},
                               {"hazards", plan.at("hazards").size()}}
                    .dump(2)
             << "\n";
  } else {
    print_summary(*ctx.out, fp, plan, out);
  }
  return exit_ok;
}

}  // namespace r2r::cli
