// SPDX-License-Identifier: MIT
// The knowledge tables of configs/knowledge/, embedded at build time: "errors" (failure classes,
// configs/schema/errors.schema.json), "imports" (import name -> distribution), "cuda_packages"
// (ROCm rules of CUDA-only packages) and "stdlib" (Python standard-library modules).
// CONTRACT: each table is parsed once per process image (the executable, or each plugin .so that
// links this library), on first use; the returned reference lives until the process ends.
// THREADING: safe from any thread (function-local static initialisation).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace r2r::knowledge {

/// The parsed table `name`. Throws std::out_of_range naming the tables there are when `name` is
/// none of them.
const nlohmann::json& table(std::string_view name);

/// The names of the embedded tables, in build order.
std::vector<std::string> table_names();

}  // namespace r2r::knowledge
