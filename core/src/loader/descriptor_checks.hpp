// SPDX-License-Identifier: MIT
// Checks a descriptor returned by a plugin entry before anything in it is called.
#pragma once

#include <r2r/plugin_api.h>
#include <r2r/core/error.hpp>

#include <filesystem>

namespace r2r::core::detail {

/// ABI version and struct size (phase::abi), required operations, strings, kind and id format
/// (phase::capability). Reads only fields that the struct size says are present.
result<void> check_descriptor(const r2r_plugin_desc* desc, const std::filesystem::path& library);

}  // namespace r2r::core::detail
