// SPDX-License-Identifier: MIT
// The checks r2r-plugin-conformance registers for one plugin library.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace r2r::conformance {

struct options {
  std::filesystem::path plugin;                 // absolute path of the library under test
  std::optional<std::filesystem::path> config;  // a config file to validate and instantiate with
  int iterations = 100;                         // create/destroy loop length
};

/// Loads the library once and registers one GoogleTest test per check and descriptor.
/// Returns false (after printing why) when the library cannot even be inspected.
bool register_checks(const options& opts);

}  // namespace r2r::conformance
