// SPDX-License-Identifier: MIT
// Names of plugin kinds as used in ids, file names, pipeline files and messages.
#pragma once

#include <r2r/plugin_api.h>

#include <optional>
#include <string_view>

namespace r2r::core {

/// "guard" for R2R_KIND_GUARD; "unknown" for a kind this host does not know.
std::string_view kind_name(r2r_kind kind) noexcept;
std::optional<r2r_kind> kind_from_name(std::string_view name) noexcept;
/// Every kind this host knows, in ABI order.
const r2r_kind* known_kinds(std::size_t* count) noexcept;

}  // namespace r2r::core
