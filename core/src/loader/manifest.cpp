// SPDX-License-Identifier: MIT
#include "manifest.hpp"

#include <r2r/core/plugin_kind.hpp>

#include <fstream>
#include <sstream>

namespace r2r::core {

std::filesystem::path manifest_path_for(const std::filesystem::path& library) {
  auto out = library;
  out.replace_extension(".plugin.json");
  return out;
}

nlohmann::json make_manifest(const std::vector<loaded_plugin>& plugins, const std::filesystem::path& library) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& p : plugins) {
    list.push_back({{"id", p.info.id},
                    {"kind", std::string(kind_name(p.info.kind))},
                    {"version", p.info.version},
                    {"abi", std::to_string(p.info.abi_major) + "." + std::to_string(p.info.abi_minor)},
                    {"description", p.info.description},
                    {"config_schema", p.info.config_schema},
                    {"example_config", p.info.example_config}});
  }
  return {{"manifest_version", detail::manifest_version}, {"library", library.filename().string()}, {"plugins", list}};
}

namespace detail {

result<std::optional<nlohmann::json>> read_manifest(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::optional<nlohmann::json>{};
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(phase::manifest, "manifest exists but cannot be read", {}, file.string());
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    return fail(phase::manifest,
                std::string("manifest is not valid JSON (") + e.what() +
                    "); regenerate it with r2r-plugin-manifest or reinstall the plugin",
                {}, file.string());
  }
  if (!doc.is_object() || doc.value("manifest_version", 0) != manifest_version || !doc.contains("plugins") ||
      !doc["plugins"].is_array()) {
    return fail(phase::manifest,
                "manifest has an unknown layout (expected manifest_version " + std::to_string(manifest_version) +
                    " with a plugins array); regenerate it with r2r-plugin-manifest",
                {}, file.string());
  }
  return std::optional<nlohmann::json>(std::move(doc));
}

result<void> check_against_manifest(const nlohmann::json& manifest, const plugin_info& info) {
  const std::string file = info.library.string();
  for (const auto& entry : manifest["plugins"]) {
    if (!entry.is_object() || entry.value("id", "") != info.id) continue;
    const std::string abi = std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor);
    std::string diff;
    auto compare = [&](const char* field, const std::string& binary) {
      const std::string listed = entry.value(field, "");
      if (listed != binary)
        diff += std::string(diff.empty() ? "" : ", ") + field + " '" + listed + "' vs '" + binary + "'";
    };
    compare("kind", std::string(kind_name(info.kind)));
    compare("version", info.version);
    compare("abi", abi);
    if (!diff.empty()) {
      return fail(phase::manifest,
                  "manifest and binary disagree (manifest vs binary: " + diff + "); reinstall the plugin", info.id,
                  file);
    }
    return {};
  }
  return fail(phase::manifest, "manifest does not list this plugin; reinstall the plugin", info.id, file);
}

}  // namespace detail
}  // namespace r2r::core
