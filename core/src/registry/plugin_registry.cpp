// SPDX-License-Identifier: MIT
#include <r2r/core/plugin_registry.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace r2r::core {

result<plugin_registry> plugin_registry::load(const std::vector<search_location>& path) {
  plugin_registry registry;
  for (const auto& file : discover_plugin_files(path)) {
    if (auto added = registry.add(load_plugin_file(file.path)); !added) return tl::unexpected(added.error());
  }
  // One line per load: tests count them (a run loads its registry once).
  spdlog::info("plugin registry loaded: {} plugins, {} disabled", registry.plugins_.size(), registry.disabled_.size());
  return registry;
}

result<void> plugin_registry::add(load_outcome outcome) {
  for (auto& plugin : outcome.plugins) {
    if (auto it = plugins_.find(plugin.info.id); it != plugins_.end()) {
      return fail(phase::registry,
                  "duplicate plugin id: defined by " + it->second.info.library.string() + " and by " +
                      plugin.info.library.string() + "; remove one of them from the plugin path",
                  plugin.info.id);
    }
    const std::string id = plugin.info.id;
    plugins_.emplace(id, std::move(plugin));
  }
  for (auto& d : outcome.disabled) disabled_.push_back(std::move(d));
  return {};
}

const loaded_plugin* plugin_registry::find(std::string_view id) const {
  auto it = plugins_.find(id);
  return it == plugins_.end() ? nullptr : &it->second;
}

const disabled_plugin* plugin_registry::find_disabled(std::string_view id) const {
  for (const auto& d : disabled_) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

std::vector<const loaded_plugin*> plugin_registry::list(std::optional<r2r_kind> kind) const {
  std::vector<const loaded_plugin*> out;
  for (const auto& [id, plugin] : plugins_) {
    if (!kind || plugin.info.kind == *kind) out.push_back(&plugin);
  }
  std::stable_sort(out.begin(), out.end(), [](const loaded_plugin* a, const loaded_plugin* b) {
    return a->info.kind != b->info.kind ? a->info.kind < b->info.kind : a->info.id < b->info.id;
  });
  return out;
}

}  // namespace r2r::core
