// SPDX-License-Identifier: MIT
// The checks r2r-plugin-conformance registers for one plugin library.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace r2r::conformance {

/// --service NAME=LIBRARY[:CONFIG.json]: an instance of LIBRARY's (only) plugin served to the
/// plugin under test as the service NAME (an llm for a converter or policy, for example).
struct service_option {
  std::string name;
  std::filesystem::path library;
  std::optional<std::filesystem::path> config;  // absent: the service plugin's example config
};

struct options {
  std::filesystem::path plugin;                 // absolute path of the library under test
  std::optional<std::filesystem::path> config;  // a config file to validate and instantiate with
  std::optional<nlohmann::json> config_patch;   // --set: JSON merge patch (RFC 7386) over that config
  std::vector<service_option> services;
  bool require_available = false;  // an instance or call that is unavailable here fails instead of skipping
  int iterations = 100;            // create/destroy loop length
};

/// Parses NAME=LIBRARY[:CONFIG.json]; nullopt (with `problem` set) when malformed.
std::optional<service_option> parse_service_option(const std::string& text, std::string& problem);

/// Loads the library once and registers one GoogleTest test per check and descriptor.
/// Returns false (after printing why) when the library or a --service cannot be used.
bool register_checks(const options& opts);

}  // namespace r2r::conformance
