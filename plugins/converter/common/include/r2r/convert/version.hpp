// SPDX-License-Identifier: MIT
// ROCm/CUDA release numbers as comparable integers: "6.2.1" -> 60201 (major*10000+minor*100+patch).
// 0 means "not given" everywhere in the mapping tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace r2r::plugins::converter {

using version_code = std::uint32_t;

/// Parses "MAJOR.MINOR[.PATCH]" (components 0..99 for minor and patch); nullopt when malformed.
std::optional<version_code> parse_version(std::string_view text);

/// "6.2.0" from 60200; "" from 0.
std::string format_version(version_code code);

}  // namespace r2r::plugins::converter
