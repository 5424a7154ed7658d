// SPDX-License-Identifier: MIT
// Loads one plugin file: pre-flight (exports read without running code), dlopen, entry call, ABI and
// capability checks, schema compilation, manifest cross-check. A file yields loaded plugins and/or
// disabled records with their reasons; it never throws and never stops the loading of other files.
// THREADING: call from one thread (dlopen is not thread-safe everywhere).
#pragma once

#include <r2r/plugin_api.h>
#include <r2r/core/dynamic_library.hpp>
#include <r2r/core/error.hpp>
#include <r2r/core/json_schema.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace r2r::core {

/// What core knows of a plugin, copied out of its descriptor.
struct plugin_info {
  r2r_kind kind = 0;
  std::string id;
  std::string version;
  std::string description;
  std::uint32_t abi_major = 0;
  std::uint32_t abi_minor = 0;
  std::filesystem::path library;
  nlohmann::json config_schema;   // parsed schema document
  nlohmann::json example_config;  // parsed example (object)
  bool has_manifest = false;
};

/// A plugin ready to create instances.
struct loaded_plugin {
  plugin_info info;
  const r2r_plugin_desc* descriptor = nullptr;  // OWNERSHIP: library; valid while `library` lives
  std::shared_ptr<dynamic_library> library;
  std::shared_ptr<const json_schema> config_schema;
};

/// A file or descriptor that could not be used, kept visible with its reason.
struct disabled_plugin {
  std::filesystem::path library;
  std::string id;  // empty when the failure happened before the id was known
  error reason;
};

struct load_outcome {
  std::vector<loaded_plugin> plugins;
  std::vector<disabled_plugin> disabled;
};

/// Loads every plugin in `file` (an absolute path). Host ABI is R2R_ABI_MAJOR.R2R_ABI_MINOR.
load_outcome load_plugin_file(const std::filesystem::path& file);

/// The sidecar manifest path of a library: libr2r-guard-x.so -> libr2r-guard-x.plugin.json.
std::filesystem::path manifest_path_for(const std::filesystem::path& library);

/// The manifest document describing `plugins` (what r2r-plugin-manifest writes).
nlohmann::json make_manifest(const std::vector<loaded_plugin>& plugins, const std::filesystem::path& library);

}  // namespace r2r::core
