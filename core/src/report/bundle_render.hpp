// SPDX-License-Identifier: MIT
// The bundle files that are renderings of others (internal to r2r_report): commands.log, the
// Dockerfile and environment.txt. write_bundle writes them; verify_bundle renders the Dockerfile
// again from plan.json and trajectory.jsonl and compares.
#pragma once

#include <r2r/report/bundle.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::report::detail {

inline constexpr std::string_view environment_name = "environment.txt";

/// commands.log: host commands (secrets redacted), then the executor's commands.log verbatim.
std::string render_commands_log(const bundle_inputs& in);

/// A commands.log text holds at least one command line (a line neither empty nor a `#` comment).
bool has_commands(std::string_view commands_log);

/// The planner's Dockerfile plus the executor's successful installs (successful_installs, in
/// order), each a RUN step preceded by ARG lines naming the index it used (PIP_/UV_INDEX_URL,
/// PIP_/UV_EXTRA_INDEX_URL, PIP_TRUSTED_HOST for plain-http hosts; a URL that had credentials is
/// declared without a value), applying patch.diff when `with_patch`. The first index the
/// executor used is also declared before the plan's first step (the executor ran those with it). Throws
/// nlohmann::json::exception when the plan cannot be rendered.
std::string render_bundle_dockerfile(const nlohmann::json& plan, const std::vector<nlohmann::json>& trajectory,
                                     bool with_patch);

/// environment.txt: one `pip freeze` line per line.
std::string render_environment(const std::vector<std::string>& freeze);
std::vector<std::string> parse_environment(std::string_view text);

}  // namespace r2r::report::detail
