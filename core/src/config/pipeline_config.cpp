// SPDX-License-Identifier: MIT
#include <r2r/core/pipeline_config.hpp>

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/plugin_kind.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace r2r::core {
namespace {

std::optional<std::string> read_file_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `child` (which has "extends") over its parent file: the parent's fields, each top-level field
/// of the child replacing the parent's, instances merged by name, and each child stage entry
/// replacing the parent's entry of the same `name` in place, or appended when no entry has it.
tl::expected<nlohmann::json, config_problem> resolve_extends(const nlohmann::json& child,
                                                             const std::filesystem::path& file,
                                                             const pipeline_reader& read) {
  const auto& ext = child["extends"];
  if (!ext.is_string() || ext.get<std::string>().empty())
    return tl::unexpected(config_problem{"/extends", "",
                                         "extends names one parent pipeline file (a path relative to "
                                         "this file); found " +
                                             ext.dump()});
  const std::filesystem::path parent_file = file.parent_path() / ext.get<std::string>();
  const auto text = read(parent_file);
  if (!text)
    return tl::unexpected(config_problem{
        "/extends", "",
        "cannot read the parent pipeline " + parent_file.string() + "; give a path relative to this file's directory"});
  nlohmann::json parent = nlohmann::json::parse(*text, nullptr, false);
  if (!parent.is_object())
    return tl::unexpected(
        config_problem{"/extends", "", "the parent pipeline " + parent_file.string() + " is not a JSON object"});
  if (parent.contains("extends"))
    return tl::unexpected(config_problem{"/extends", "",
                                         "the parent pipeline " + parent_file.string() +
                                             " extends another file; extends takes one parent only, "
                                             "so extend the grandparent directly"});
  nlohmann::json merged = parent;
  for (auto it = child.begin(); it != child.end(); ++it) {
    if (it.key() == "extends" || it.key() == "pipeline" || it.key() == "instances") continue;
    merged[it.key()] = *it;
  }
  if (child.contains("instances") && child["instances"].is_object()) {
    if (!merged.contains("instances") || !merged["instances"].is_object())
      merged["instances"] = nlohmann::json::object();
    for (auto it = child["instances"].begin(); it != child["instances"].end(); ++it)
      merged["instances"][it.key()] = *it;
  }
  if (child.contains("pipeline")) {
    if (!child["pipeline"].is_array() || !merged["pipeline"].is_array())
      return tl::unexpected(config_problem{"/pipeline", "",
                                           "pipeline must be an array of stage entries, each "
                                           "overriding the parent's entry of the same name"});
    for (const auto& entry : child["pipeline"]) {
      bool replaced = false;
      if (entry.is_object() && entry.contains("name")) {
        for (auto& p : merged["pipeline"]) {
          if (p.is_object() && p.value("name", nlohmann::json()) == entry["name"]) {
            p = entry;
            replaced = true;
            break;
          }
        }
      }
      if (!replaced) merged["pipeline"].push_back(entry);
    }
  }
  return merged;
}

}  // namespace

std::string config_problem::to_string() const {
  std::string out;
  if (!plugin_id.empty()) out += plugin_id + " ";
  out += pointer.empty() ? "/" : pointer;
  out += ": " + message;
  return out;
}

std::optional<r2r_kind> stage_kind(std::string_view stage) {
  static constexpr std::pair<std::string_view, r2r_kind> stages[] = {
      {"rank", R2R_KIND_RANKER},        {"convert", R2R_KIND_CONVERTER}, {"sandbox", R2R_KIND_SANDBOX},
      {"policy", R2R_KIND_POLICY},      {"guard", R2R_KIND_GUARD},       {"verify", R2R_KIND_VERIFIER},
      {"schedule", R2R_KIND_SCHEDULER},
  };
  for (const auto& [name, kind] : stages) {
    if (name == stage) return kind;
  }
  return std::nullopt;
}

namespace {

plugin_use read_use(const nlohmann::json& j, std::string pointer) {
  plugin_use u;
  u.use = j.at("use").get<std::string>();
  if (auto it = j.find("config"); it != j.end()) u.config = *it;
  if (auto it = j.find("log_level"); it != j.end()) u.log_level = it->get<std::string>();
  u.pointer = std::move(pointer);
  return u;
}

}  // namespace

parsed_pipeline parse_pipeline_text(std::string_view text, const std::filesystem::path& file,
                                    const pipeline_reader& read) {
  parsed_pipeline out;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    out.problems.push_back({"", "", std::string("not valid JSON: ") + e.what() + "; fix the syntax at that position"});
    return out;
  }
  if (doc.is_object() && doc.contains("extends")) {
    if (auto merged = resolve_extends(doc, file, read ? read : read_file_text); merged) {
      doc = std::move(*merged);
    } else {
      out.problems.push_back(merged.error());
      return out;
    }
  }
  const json_schema* schema = embedded_schema("pipeline.schema.json");
  if (schema == nullptr) {
    out.problems.push_back({"", "", "internal: the embedded pipeline schema does not compile"});
    return out;
  }
  for (const auto& v : schema->validate(doc)) {
    std::string message = v.message;
    if (!v.expected.empty()) message += "; expected " + v.expected;
    if (!v.found.empty()) message += "; found " + v.found;
    out.problems.push_back({v.pointer, "", message});
  }
  if (!out.problems.empty()) return out;

  pipeline_config config;
  std::error_code ec;
  config.file = std::filesystem::absolute(file, ec).lexically_normal();
  config.name = doc.value("name", file.stem().string());
  config.description = doc.value("description", "");
  if (auto p = doc.find("plugins"); p != doc.end()) {
    config.search_paths = p->value("search_paths", std::vector<std::string>{});
  }
  if (auto inst = doc.find("instances"); inst != doc.end()) {
    for (auto it = inst->begin(); it != inst->end(); ++it) {
      config.instances.emplace(it.key(), read_use(*it, "/instances/" + it.key()));
    }
  }
  std::set<std::string> names;
  const auto& stages = doc["pipeline"];
  for (std::size_t i = 0; i < stages.size(); ++i) {
    pipeline_stage s;
    s.stage = stages[i].at("stage").get<std::string>();
    s.plugin = read_use(stages[i], "/pipeline/" + std::to_string(i));
    s.name = stages[i].value("name", s.stage + "-" + std::to_string(i));
    if (!names.insert(s.name).second) {
      out.problems.push_back({s.plugin.pointer + "/name", s.plugin.use,
                              "stage name '" + s.name + "' is used twice; names must be unique"});
    }
    if (config.instances.count(s.name) != 0) {
      out.problems.push_back({s.plugin.pointer + "/name", s.plugin.use,
                              "stage name '" + s.name + "' clashes with an instance of the same name"});
    }
    config.stages.push_back(std::move(s));
  }
  if (out.problems.empty()) out.config = std::move(config);
  return out;
}

parsed_pipeline parse_pipeline_file(const std::filesystem::path& file) {
  auto text = read_file_text(file);
  if (!text) {
    parsed_pipeline out;
    out.problems.push_back({"", "",
                            "cannot read pipeline file " + file.string() +
                                " (does it exist? pass a path such as configs/pipelines/default.json)"});
    return out;
  }
  return parse_pipeline_text(*text, file);
}

namespace {

/// The id with '_' in its name part written as '-' (the one separator; r2r.guard.cpu-fallback was
/// renamed r2r.guard.cpu-fallback), for a hint when a pipeline names an id by its old spelling.
std::string dashed_id(std::string id) {
  const auto name_start = id.find('.', id.find('.') + 1);
  if (name_start == std::string::npos) return id;
  std::replace(id.begin() + static_cast<std::ptrdiff_t>(name_start), id.end(), '_', '-');
  return id;
}

void check_use(const plugin_use& u, std::optional<r2r_kind> expected_kind, const std::string& stage,
               const plugin_registry& registry, std::vector<config_problem>& problems) {
  const loaded_plugin* plugin = registry.find(u.use);
  if (plugin == nullptr) {
    if (const disabled_plugin* d = registry.find_disabled(u.use)) {
      problems.push_back({u.pointer + "/use", u.use, "plugin is disabled: " + d->reason.to_string()});
    } else if (std::string dashed = dashed_id(u.use); dashed != u.use && registry.find(dashed) != nullptr) {
      problems.push_back({u.pointer + "/use", u.use,
                          "no such plugin: plugin ids use '-' inside names; did you mean \"" + dashed + "\"?"});
    } else {
      problems.push_back({u.pointer + "/use", u.use,
                          "no such plugin on the plugin path; `repo2rocm plugins list` shows what is installed, "
                          "--plugin-path or R2R_PLUGIN_PATH adds directories"});
    }
    return;
  }
  if (expected_kind && plugin->info.kind != *expected_kind) {
    problems.push_back({u.pointer + "/use", u.use,
                        "stage '" + stage + "' takes a " + std::string(kind_name(*expected_kind)) +
                            " plugin, but this plugin is a " + std::string(kind_name(plugin->info.kind))});
  }
  for (const auto& v : plugin->config_schema->validate(u.config)) {
    std::string message = v.message;
    if (!v.expected.empty()) message += "; expected " + v.expected;
    if (!v.found.empty()) message += "; found " + v.found;
    message += " (the schema: repo2rocm plugins describe " + u.use + ")";
    problems.push_back({u.pointer + "/config" + v.pointer, u.use, message});
  }
}

}  // namespace

std::vector<config_problem> check_pipeline_plugins(const pipeline_config& config, const plugin_registry& registry) {
  std::vector<config_problem> problems;
  for (const auto& [name, use] : config.instances) check_use(use, std::nullopt, "", registry, problems);
  for (const auto& stage : config.stages) {
    check_use(stage.plugin, stage_kind(stage.stage), stage.stage, registry, problems);
  }
  return problems;
}

}  // namespace r2r::core
