// SPDX-License-Identifier: MIT
// All plugins known to one run, by id. Owned by the caller (no global state), filled once from one
// thread at start-up, then read-only: lookups are safe from any thread afterwards.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/core/plugin_loader.hpp>
#include <r2r/core/search_path.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::core {

class plugin_registry {
 public:
  /// Loads every file on `path`. A duplicate id is a hard error naming both files; a file that
  /// fails to load is recorded in disabled() and does not stop the others.
  static result<plugin_registry> load(const std::vector<search_location>& path);

  /// Adds the outcome of loading one file (used by load(), tools and tests).
  result<void> add(load_outcome outcome);

  const loaded_plugin* find(std::string_view id) const;
  /// Plugins sorted by (kind, id); only those of `kind` when given.
  std::vector<const loaded_plugin*> list(std::optional<r2r_kind> kind = std::nullopt) const;
  const std::vector<disabled_plugin>& disabled() const noexcept { return disabled_; }
  /// The disabled record of `id`, when a plugin with that id failed to load.
  const disabled_plugin* find_disabled(std::string_view id) const;

 private:
  std::map<std::string, loaded_plugin, std::less<>> plugins_;
  std::vector<disabled_plugin> disabled_;
};

}  // namespace r2r::core
