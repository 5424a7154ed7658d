// SPDX-License-Identifier: MIT
// JSON Schemas compiled into the binary (pipeline.schema.json and plugin_api/schemas/**), so an
// installed repo2rocm validates without its source tree. Embedded by r2r_embed_text() (cmake/EmbedText.cmake).
#pragma once

#include <r2r/core/json_schema.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace r2r::core {

/// Text of an embedded schema by relative name ("pipeline.schema.json",
/// "guard/check_action.request.schema.json"); empty when there is none.
std::string_view embedded_schema_text(std::string_view name);

/// Names of every embedded schema, sorted.
std::vector<std::string> embedded_schema_names();

/// Methods of a kind that have message schemas ("guard" -> {"check_action", "observe"}).
std::vector<std::string> kind_methods(std::string_view kind);

/// Compiled schema by name, compiled once on first use; nullptr when there is none.
/// THREADING: safe from any thread.
const json_schema* embedded_schema(std::string_view name);

/// The schema of a kind's message, e.g. ("guard", "check_action", true) for the request.
const json_schema* message_schema(std::string_view kind, std::string_view method, bool request);

}  // namespace r2r::core
