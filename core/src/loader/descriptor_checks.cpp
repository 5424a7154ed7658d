// SPDX-License-Identifier: MIT
#include "descriptor_checks.hpp"

#include <r2r/core/plugin_kind.hpp>

#include <cstddef>
#include <regex>
#include <string>

namespace r2r::core::detail {
namespace {

// Smallest descriptor of ABI 1.0: every field up to and including last_error.
constexpr std::size_t min_desc_size = offsetof(r2r_plugin_desc, last_error) + sizeof(void*);

std::string version_text(std::uint32_t major, std::uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace

result<void> check_descriptor(const r2r_plugin_desc* desc, const std::filesystem::path& library) {
  const std::string file = library.string();
  if (desc == nullptr) return fail(phase::entry, "entry returned a null descriptor pointer", {}, file);
  const std::string host = version_text(R2R_ABI_MAJOR, R2R_ABI_MINOR);

  if (desc->struct_size < offsetof(r2r_plugin_desc, kind)) {
    return fail(phase::abi,
                "descriptor is " + std::to_string(desc->struct_size) +
                    " bytes, too small to hold an ABI version; the file is corrupt or not an r2r plugin",
                {}, file);
  }
  const std::string plugin = version_text(desc->abi_major, desc->abi_minor);
  if (desc->abi_major != R2R_ABI_MAJOR) {
    return fail(phase::abi,
                "plugin ABI " + plugin + " not compatible with host ABI " + host +
                    "; rebuild the plugin against r2r-sdk " + std::to_string(R2R_ABI_MAJOR) + ".x",
                {}, file);
  }
  if (desc->abi_minor > R2R_ABI_MINOR) {
    return fail(phase::abi,
                "plugin needs ABI " + plugin + " but this host provides " + host +
                    "; upgrade repo2rocm or rebuild the plugin against SDK " + host,
                {}, file);
  }
  if (desc->struct_size < min_desc_size) {
    return fail(phase::abi,
                "descriptor is " + std::to_string(desc->struct_size) + " bytes, ABI " + plugin + " requires at least " +
                    std::to_string(min_desc_size) + "; the plugin is corrupt",
                {}, file);
  }
  if (desc->struct_size > sizeof(r2r_plugin_desc)) {
    return fail(phase::abi,
                "descriptor is " + std::to_string(desc->struct_size) + " bytes but ABI " + plugin + " defines " +
                    std::to_string(sizeof(r2r_plugin_desc)) +
                    "; the plugin was built with a mismatched plugin_api.h (rebuild it with the SDK)",
                {}, file);
  }

  if (desc->id == nullptr || desc->id[0] == '\0') {
    return fail(phase::capability, "descriptor has no id", {}, file);
  }
  const std::string id = desc->id;
  std::string missing;
  if (desc->create == nullptr) missing += " create";
  if (desc->destroy == nullptr) missing += " destroy";
  if (desc->call == nullptr) missing += " call";
  if (desc->last_error == nullptr) missing += " last_error";
  if (!missing.empty()) {
    return fail(phase::capability,
                "null operations:" + missing +
                    "; every plugin must provide create, destroy, call "
                    "and last_error (the r2r SDK generates them)",
                id, file);
  }
  if (desc->version == nullptr || desc->config_schema == nullptr) {
    return fail(phase::capability, "descriptor lacks a version or config_schema string", id, file);
  }
  const std::string_view kind = kind_name(desc->kind);
  if (kind == "unknown") {
    return fail(phase::capability,
                "unknown plugin kind " + std::to_string(desc->kind) + " for host ABI " + host + "; upgrade repo2rocm",
                id, file);
  }
  static const std::regex id_pattern(R"(^[a-z0-9][a-z0-9_-]*\.([a-z_]+)\.[a-z0-9][a-z0-9_.-]*$)");
  std::smatch m;
  if (!std::regex_match(id, m, id_pattern)) {
    return fail(phase::capability, "id must look like <org>.<kind>.<name> in lower case (e.g. r2r.guard.cpu-fallback)",
                id, file);
  }
  if (m[1].str() != kind) {
    return fail(phase::capability,
                "id names kind '" + m[1].str() + "' but the descriptor's kind is '" + std::string(kind) + "'", id,
                file);
  }
  return {};
}

}  // namespace r2r::core::detail
