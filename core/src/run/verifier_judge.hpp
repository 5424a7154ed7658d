// SPDX-License-Identifier: MIT
// Stored verifier evidence re-judged through the plugin registry: the verifier kind's `judge`
// method ({plan, mode, capture} -> the verify response, running nothing), on an instance made with
// an empty configuration (the plugin's schema defaults), never with a configuration read from the
// evidence or the bundle, so a forger cannot loosen the checks that re-judge it.
#pragma once

#include <r2r/core/plugin_registry.hpp>
#include <r2r/report/bundle.hpp>

#include <filesystem>
#include <vector>

namespace r2r::run {

/// A judge over `registry`. LIFETIME: `registry` must outlive the returned function, which keeps
/// one instance per verifier id. THREADING: not thread-safe (one caller at a time).
report::judge_function registry_judge(const core::plugin_registry& registry);

/// What `repo2rocm verify` trusts: the PEM public key in `trusted_key_file` (a usage error when it
/// cannot be read), else this host's bundle key under `state_dir` when there is one, else nothing.
core::result<report::verify_options> bundle_trust(const std::string& trusted_key_file,
                                                  const std::filesystem::path& state_dir);

/// Reads a JSON object from `file`; errors (phase io) name the file.
core::result<nlohmann::json> read_json_object(const std::filesystem::path& file);

/// `repo2rocm verify-evidence`: each DIR/capture.json re-judged by its verifier (the directory's
/// name when it is an installed verifier, else the Mode 1 verifier of the capture's vendor).
/// Returns {verdict (combined), results: [{id, evidence, response}]}.
core::result<nlohmann::json> judge_evidence(const core::plugin_registry& registry,
                                            const std::vector<std::filesystem::path>& dirs, const nlohmann::json& plan,
                                            int mode);

}  // namespace r2r::run
