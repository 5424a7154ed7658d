// SPDX-License-Identifier: MIT
// The pipeline file (configs/pipelines/*.json): parsing, whole-file validation against
// configs/schema/pipeline.schema.json, then each plugin config against that plugin's own schema,
// all before any plugin is created. Every problem is reported with its JSON pointer and plugin id.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::core {

/// A reference to a plugin with its config, at a location in the pipeline file.
struct plugin_use {
  std::string use;  // plugin id
  nlohmann::json config = nlohmann::json::object();
  std::optional<std::string> log_level;
  std::string pointer;  // where it is in the file: "/instances/llm" or "/pipeline/2"
};

struct pipeline_stage {
  std::string stage;  // "rank", "convert", "guard", ...
  std::string name;   // unique per file; defaults to "<stage>-<index>"
  plugin_use plugin;
};

struct pipeline_config {
  std::filesystem::path file;  // absolute
  std::string name;
  std::string description;
  std::vector<std::string> search_paths;  // as written; relative to file's directory
  std::map<std::string, plugin_use> instances;
  std::vector<pipeline_stage> stages;
};

/// One problem found by validation.
struct config_problem {
  std::string pointer;    // JSON pointer into the pipeline file
  std::string plugin_id;  // empty for file-level problems
  std::string message;    // what was expected, what was found, what to do

  std::string to_string() const;
};

/// Reads and validates the file against the pipeline schema. On schema violations, every one is
/// returned (not just the first) as problems; I/O and JSON syntax errors come back as a single problem.
struct parsed_pipeline {
  std::optional<pipeline_config> config;  // set when the file is structurally valid
  std::vector<config_problem> problems;
};
///
/// `"extends": "PARENT.json"` (relative to the file's directory; one parent, which must not extend
/// another) starts from the parent: the child's top-level fields replace the parent's, its
/// instances are merged by name, and each of its stage entries replaces the parent's entry of the
/// same `name` in place (or is appended when the parent has none). The merged document is then
/// validated as a whole.
using pipeline_reader = std::function<std::optional<std::string>(const std::filesystem::path&)>;
parsed_pipeline parse_pipeline_file(const std::filesystem::path& file);
/// `read` fetches a parent named by `extends` (default: from disk).
parsed_pipeline parse_pipeline_text(std::string_view text, const std::filesystem::path& file,
                                    const pipeline_reader& read = {});

/// The plugin kind a stage takes ("guard" -> R2R_KIND_GUARD).
std::optional<r2r_kind> stage_kind(std::string_view stage);

/// Checks every plugin use against the registry: unknown or disabled ids (with the reason), kind
/// mismatches with the stage, and every config violation of the plugin's schema.
std::vector<config_problem> check_pipeline_plugins(const pipeline_config& config, const plugin_registry& registry);

}  // namespace r2r::core
