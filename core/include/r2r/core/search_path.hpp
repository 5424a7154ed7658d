// SPDX-License-Identifier: MIT
// Where plugins are looked for, in precedence order (first hit of a file name wins):
//   1. --plugin-path (repeatable; a directory or a plugin file)
//   2. R2R_PLUGIN_PATH (':'-separated)
//   3. the pipeline file's plugins.search_paths, relative to the pipeline file
//   4. <directory of the executable>/../lib/r2r/plugins
//   5. <install prefix>/lib/r2r/plugins
// Every path is made absolute before use; nothing relies on LD_LIBRARY_PATH.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::core {

struct search_location {
  std::filesystem::path path;  // absolute, lexically normal
  std::string origin;          // "--plugin-path", "R2R_PLUGIN_PATH", "pipeline", "executable", "install prefix"
};

struct search_inputs {
  std::vector<std::string> cli_paths;
  std::string env_value;  // contents of R2R_PLUGIN_PATH, empty when unset
  std::vector<std::string> pipeline_paths;
  std::filesystem::path pipeline_dir;  // base of relative pipeline paths
  std::filesystem::path executable_dir;
  std::filesystem::path install_prefix;
};

/// The ordered, de-duplicated search locations.
std::vector<search_location> plugin_search_path(const search_inputs& in);

/// A plugin file chosen for loading, and the location it came from.
struct plugin_file {
  std::filesystem::path path;
  std::string origin;
};

/// Plugin files found: explicit files as given, and in directories every `libr2r-*.so`, sorted by
/// name. A file name already found earlier on the path shadows later ones (reported in `shadowed`).
std::vector<plugin_file> discover_plugin_files(const std::vector<search_location>& path,
                                               std::vector<std::string>* shadowed = nullptr);

}  // namespace r2r::core
