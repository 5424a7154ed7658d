// SPDX-License-Identifier: MIT
#include "plan_core.hpp"

#include "plan_output.hpp"

#include "../report/atomic_dir.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/planning/plan.hpp>

#include <cstdlib>
#include <optional>
#include <regex>

namespace r2r::run {
namespace {

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

/// One `complete` call on an llm instance: the reply's text blocks joined, or why there is none.
tl::expected<paper::model_answer, std::string> ask_model(core::plugin_instance& model, const std::string& system,
                                                         const std::string& user) {
  const nlohmann::json request = {{"system", system},
                                  {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", user}}}}}}},
                                  {"max_tokens", 512},
                                  {"temperature", 0.0}};
  auto response = model.call("complete", request);
  if (!response) return tl::unexpected("the model call failed: " + response.error().message);
  paper::model_answer answer;
  answer.model = response->value("model", std::string());
  for (const auto& block : response->value("content", nlohmann::json::array()))
    if (block.is_object() && block.value("type", std::string()) == "text") answer.text += block.value("text", "");
  return answer;
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

core::result<nlohmann::json> rank_images(core::plugin_instance& ranker, const nlohmann::json& request) {
  return ranker.call("rank", request);
}

core::result<plan_outputs> make_plan(const plan_request& request) {
  const auto& k = planning::builtin_knowledge();
  plan_outputs out;
  out.fp = planning::scan_repository(request.tree, k);
  out.fp.source = request.source;
  out.fp.url = request.url;
  out.fp.commit = request.commit;
  const auto rank_request = planning::make_rank_request(out.fp, request.arch, k.catalog, {},
                                                        planning::load_image_failures(request.state_dir));
  if (request.ranker == nullptr)
    return core::fail(core::phase::config,
                      "the pipeline has no `rank` stage; add one (e.g. configs/pipelines/plan.json)");
  auto ranking = rank_images(*request.ranker, rank_request);
  if (!ranking) return tl::unexpected(ranking.error());
  std::optional<paper_input> paper_in;
  if (!request.paper.empty()) {
    auto resolved = resolve_paper(request.paper, request.earlier);
    if (!resolved) return tl::unexpected(resolved.error());
    paper_in = std::move(*resolved);
  }
  planning::plan_inputs in;
  in.fp = &out.fp;
  in.paper = paper_in ? &paper_in->doc : nullptr;
  if (request.paper_model != nullptr) {
    in.paper_model = [model = request.paper_model](const std::string& system, const std::string& user) {
      return ask_model(*model, system, user);
    };
    in.paper_model_instance = paper_rank_instance;
  }
  in.tree = request.tree;
  in.arch = request.arch;
  in.ranking = *ranking;
  in.base_image_override = request.base_image;
  in.notes = request.notes;
  in.content_hash = request.content_hash;
  out.plan = planning::build_plan(in, k);
  if (paper_in && out.plan.contains("paper")) {
    out.plan["paper"].update(paper_in->provenance);
    out.paper = std::move(paper_in->kept);
  }
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
  if (outputs.paper) return write_kept_paper(out, *outputs.paper);
  return {};
}

namespace {

/// OUT is replaced as a whole, so it must be absent, empty or an earlier plan's output.
core::result<void> check_plan_out(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec))
      return core::fail(core::phase::usage, "--out " + out.string() + " exists and is not a directory");
    if (!fs::is_empty(out, ec) && !fs::exists(out / "plan.json", ec))
      return core::fail(core::phase::usage, "--out " + out.string() +
                                                " is not empty and holds no earlier plan (no plan.json); choose "
                                                "another directory or empty it");
  }
  const auto parent = fs::absolute(out).lexically_normal().parent_path();
  fs::create_directories(parent, ec);
  if (ec) return core::fail(core::phase::io, "cannot create " + parent.string() + ": " + ec.message());
  return {};
}

}  // namespace

core::result<void> publish_plan(const std::filesystem::path& out, const plan_outputs& outputs,
                                const std::filesystem::path& tree) {
  if (auto ready = check_plan_out(out); !ready) return ready;
  // Written into OUT.tmp-XXXXXX and renamed over OUT when complete: a plan killed at any point
  // leaves the earlier output (or none), never a torn one.
  auto staged = report::detail::staged_dir::create(out);
  if (!staged) return tl::unexpected(staged.error());
  if (auto written = write_plan_files(staged->path(), outputs, tree); !written) return written;
  return staged->publish();
}

}  // namespace r2r::run
