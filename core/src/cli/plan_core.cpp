// SPDX-License-Identifier: MIT
#include "plan_core.hpp"

#include "plan_output.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/planning/plan.hpp>

#include <cstdlib>
#include <optional>
#include <regex>

namespace r2r::cli {
namespace {

constexpr const char* default_ranker = "r2r.ranker.jaccard";

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

/// JSON text of a document that may quote repository bytes that are not UTF-8 (replaced, never thrown on).
std::string dump(const nlohmann::json& doc) {
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

core::result<std::string> normalise_arch(const std::string& given) {
  const auto& k = planning::builtin_knowledge();
  std::string arch = planning::normalise_name(given);
  if (arch.empty()) return arch;
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
    return tl::unexpected(
        core::error{core::phase::usage,
                    "--arch must be a gfx target such as gfx942 or an alias such as mi300x; found '" + given + "'"});
  }
  return arch;
}

std::filesystem::path default_cache_dir() {
  return home_dir("R2R_CACHE_DIR", "XDG_CACHE_HOME", ".cache", "repos");
}

std::filesystem::path default_state_dir() {
  return home_dir("R2R_STATE_DIR", "XDG_STATE_HOME", ".local/state", "");
}

core::result<nlohmann::json> rank_images(const cli_context& ctx, const core::pipeline_config* pipeline,
                                         const nlohmann::json& request) {
  std::vector<std::string> pipeline_paths;
  std::string pipeline_dir;
  if (pipeline != nullptr) {
    pipeline_paths = pipeline->search_paths;
    pipeline_dir = pipeline->file.parent_path().string();
  }
  auto registry = core::plugin_registry::load(ctx.search_path(pipeline_paths, pipeline_dir));
  if (!registry) return tl::unexpected(registry.error());
  if (pipeline != nullptr) {
    core::pipeline_config ranking = *pipeline;
    ranking.stages.clear();
    for (const auto& s : pipeline->stages) {
      if (s.stage == "rank") ranking.stages.push_back(s);
    }
    if (ranking.stages.empty()) {
      return core::fail(core::phase::config,
                        "the pipeline has no `rank` stage; add one (e.g. configs/pipelines/plan.json)", {},
                        pipeline->file.string());
    }
    auto session = core::pipeline_session::create(ranking, *registry);
    if (!session) return tl::unexpected(session.error());
    return (*session)->stages().front().instance->call("rank", request);
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

core::result<plan_outputs> make_plan(const cli_context& ctx, const plan_request& request) {
  const auto& k = planning::builtin_knowledge();
  plan_outputs out;
  out.fp = planning::scan_repository(request.tree, k);
  out.fp.source = request.source;
  out.fp.url = request.url;
  out.fp.commit = request.commit;
  const auto rank_request = planning::make_rank_request(out.fp, request.arch, k.catalog, {},
                                                        planning::load_image_failures(request.state_dir));
  auto ranking = rank_images(ctx, request.pipeline, rank_request);
  if (!ranking) return tl::unexpected(ranking.error());
  std::optional<paper::document> paper_doc;
  if (!request.paper.empty()) {
    auto loaded = paper::load_paper(request.paper);
    if (!loaded) return core::fail(core::phase::io, loaded.error().message, {}, request.paper.string());
    paper_doc = std::move(*loaded);
  }
  planning::plan_inputs in;
  in.fp = &out.fp;
  in.paper = paper_doc ? &*paper_doc : nullptr;
  in.tree = request.tree;
  in.arch = request.arch;
  in.ranking = *ranking;
  in.base_image_override = request.base_image;
  in.notes = request.notes;
  in.content_hash = request.content_hash;
  out.plan = planning::build_plan(in, k);
  out.fingerprint_json = planning::to_json(out.fp);
  for (auto check :
       {check_schema("fingerprint.schema.json", out.fingerprint_json), check_schema("plan.schema.json", out.plan)}) {
    if (!check) return tl::unexpected(check.error());
  }
  return out;
}

core::result<void> write_plan_files(const std::filesystem::path& out, const plan_outputs& outputs,
                                    const std::filesystem::path& tree) {
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return core::fail(core::phase::io, "cannot create " + out.string() + ": " + ec.message());
  for (auto written :
       {write_text(out / "fingerprint.json", dump(outputs.fingerprint_json)),
        write_text(out / "plan.json", dump(outputs.plan)),
        write_text(out / "Dockerfile", planning::render_dockerfile(outputs.plan)), export_tree(tree, out)}) {
    if (!written) return written;
  }
  return {};
}

}  // namespace r2r::cli
