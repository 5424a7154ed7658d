// SPDX-License-Identifier: MIT
// The sidecar manifest (libr2r-<kind>-<name>.plugin.json), generated from the built binary by
// r2r-plugin-manifest so it cannot drift. Optional: hand-written C plugins may have none. When
// present, it must agree with the binary on id, kind, version and ABI.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/core/plugin_loader.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

namespace r2r::core::detail {

inline constexpr int manifest_version = 1;

/// nullopt when there is no manifest file; an error when it exists but is unreadable or malformed.
result<std::optional<nlohmann::json>> read_manifest(const std::filesystem::path& file);

/// Errors (phase::manifest) when the manifest does not list `info` exactly as the binary does.
result<void> check_against_manifest(const nlohmann::json& manifest, const plugin_info& info);

}  // namespace r2r::core::detail
