// SPDX-License-Identifier: MIT
#include <r2r/core/plugin_loader.hpp>

#include "descriptor_checks.hpp"
#include "manifest.hpp"

#include <r2r/core/plugin_kind.hpp>

#include <string>

namespace r2r::core {
namespace {

constexpr std::size_t max_descriptors = 256;

disabled_plugin disabled(const std::filesystem::path& file, std::string id, error e) {
  return disabled_plugin{file, std::move(id), std::move(e)};
}

// Parses and compiles the schema and example of a descriptor already checked.
result<loaded_plugin> make_loaded(const r2r_plugin_desc* desc, const std::shared_ptr<dynamic_library>& library) {
  loaded_plugin p;
  p.descriptor = desc;
  p.library = library;
  p.info.kind = desc->kind;
  p.info.id = desc->id;
  p.info.version = desc->version;
  p.info.description = desc->description != nullptr ? desc->description : "";
  p.info.abi_major = desc->abi_major;
  p.info.abi_minor = desc->abi_minor;
  p.info.library = library->path();
  const std::string file = library->path().string();

  auto schema = json_schema::compile_text(desc->config_schema, p.info.id + " config");
  if (!schema) return fail(phase::schema, schema.error().message + "; fix the plugin's config schema", p.info.id, file);
  p.info.config_schema = schema->document();
  p.config_schema = std::make_shared<const json_schema>(std::move(*schema));

  const char* example =
      desc->example_config != nullptr && desc->example_config[0] != '\0' ? desc->example_config : "{}";
  try {
    p.info.example_config = nlohmann::json::parse(example);
  } catch (const nlohmann::json::parse_error& e) {
    return fail(phase::schema, std::string("example config is not valid JSON: ") + e.what(), p.info.id, file);
  }
  const auto violations = p.config_schema->validate(p.info.example_config);
  if (!violations.empty()) {
    return fail(phase::schema,
                "example config violates the plugin's own schema: " + format_violation(violations.front()), p.info.id,
                file);
  }
  return p;
}

}  // namespace

load_outcome load_plugin_file(const std::filesystem::path& file) {
  load_outcome out;
  auto exported = dynamic_library::exports_symbol(file, R2R_PLUGIN_ENTRY_SYMBOL);
  if (!exported) {
    out.disabled.push_back(disabled(file, {}, exported.error()));
    return out;
  }
  if (!*exported) {
    out.disabled.push_back(disabled(
        file, {},
        error{phase::preflight,
              "no " R2R_PLUGIN_ENTRY_SYMBOL " export: not an r2r plugin (build it with r2r_add_plugin from r2r-sdk)",
              {},
              file.string()}));
    return out;
  }

  auto library = dynamic_library::open(file);
  if (!library) {
    out.disabled.push_back(disabled(file, {}, library.error()));
    return out;
  }
  auto entry = reinterpret_cast<r2r_plugin_entry_fn>((*library)->symbol(R2R_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr) {
    out.disabled.push_back(
        disabled(file, {}, error{phase::entry, "entry symbol not resolvable after load", {}, file.string()}));
    return out;
  }
  std::size_t count = 0;
  const r2r_plugin_desc* const* descriptors = entry(R2R_ABI_MAJOR, R2R_ABI_MINOR, &count);
  if (descriptors == nullptr || count == 0 || count > max_descriptors) {
    out.disabled.push_back(disabled(
        file, {},
        error{phase::entry,
              "entry returned " +
                  std::string(descriptors == nullptr ? "no descriptor array" : std::to_string(count) + " descriptors") +
                  "; expected between 1 and " + std::to_string(max_descriptors),
              {},
              file.string()}));
    return out;
  }

  const auto manifest = detail::read_manifest(manifest_path_for(file));
  if (!manifest) {
    out.disabled.push_back(disabled(file, {}, manifest.error()));
    return out;
  }

  for (std::size_t i = 0; i < count; ++i) {
    const r2r_plugin_desc* desc = descriptors[i];
    if (auto ok = detail::check_descriptor(desc, file); !ok) {
      out.disabled.push_back(disabled(file, ok.error().plugin_id, ok.error()));
      continue;
    }
    auto plugin = make_loaded(desc, *library);
    if (!plugin) {
      out.disabled.push_back(disabled(file, desc->id, plugin.error()));
      continue;
    }
    if (manifest->has_value()) {
      if (auto agreed = detail::check_against_manifest(**manifest, plugin->info); !agreed) {
        out.disabled.push_back(disabled(file, desc->id, agreed.error()));
        continue;
      }
      plugin->info.has_manifest = true;
    }
    out.plugins.push_back(std::move(*plugin));
  }
  return out;
}

}  // namespace r2r::core
