// SPDX-License-Identifier: MIT
// The checks of verify_bundle (internal to r2r_report), one concern per file: integrity and
// signature (verify_integrity.cpp), repo.tar / patch.diff / trajectory contents
// (verify_contents.cpp), the verdict's own consistency (verify_verdict.cpp) and report.json, the
// Dockerfile and report.html rebuilt from the bundle's sources (verify_rebuild.cpp).
//
// Messages say what is wrong and where, never the expected value (a hash, a score, a field's
// recomputed content): a forger learns nothing about what would have passed.
#pragma once

#include <r2r/report/bundle.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace r2r::report::detail {

/// An error about `file` of the bundle in `dir` (phase::io, the path set).
tl::unexpected<core::error> bundle_error(const std::filesystem::path& dir, const std::string& file,
                                         const std::string& message);

/// The bundle's source files, read once.
struct bundle_files {
  std::filesystem::path dir;
  nlohmann::json report;
  nlohmann::json plan;
  std::vector<nlohmann::json> trajectory;
  std::string commands_log;
  std::string patch_diff;
  std::string dockerfile;
  std::string html;
  std::optional<std::vector<std::string>> environment;  // environment.txt, when present
};

/// MANIFEST.sha256 well formed, signed (MANIFEST.sig) by the trusted key, every file listed with its
/// hash and none unlisted, the required files present. Returns the signer's fingerprint.
core::result<std::string> check_integrity(const std::filesystem::path& dir, const verify_options& options,
                                          std::vector<std::string>& notes);

/// repo.tar complete and non-empty, patch.diff applies to it, trajectory.jsonl not empty when the
/// run executed.
core::result<void> check_contents(const bundle_files& b, std::vector<std::string>& notes);

/// A passing verifier recorded checks that all passed; a pass has runtime evidence and, in Modes 1
/// and 2, Mode 1's five checks passed by one verifier; a fail has a check that did not pass.
core::result<void> check_verdict(const bundle_files& b, std::vector<std::string>& notes);

/// The verifiers' responses as report.json records them (verifier, checks, evidence, workload,
/// ledger entries sourced verifier:<id>; the merged metrics on the first verifier).
std::vector<verifier_result> recorded_responses(const nlohmann::json& report);

/// The recorded responses with every verifier's stored evidence (evidence/<id>/capture.json)
/// re-judged through options.judge in their place. Fails when evidence/ holds anything else, the
/// evidence cannot be judged, re-judges to another verdict than report.json records, or when a
/// Mode 1/2 pass has no stored evidence behind Mode 1's checks.
core::result<std::vector<verifier_result>> judged_responses(const bundle_files& b, const verify_options& options,
                                                            std::vector<std::string>& notes);

/// evidence/<verifier id>/capture.json, the one place a verifier's capture is stored.
std::string evidence_file(const std::string& verifier_id);

/// A verifier id usable as one path component.
bool valid_evidence_id(const std::string& verifier_id);

/// report.json equals build_report() over plan.json, trajectory.jsonl, commands.log,
/// environment.txt and `responses`, with only mode, image, wall time and versions taken from it;
/// the Dockerfile and report.html equal their renderings. Returns the recomputed PFS score.
core::result<double> check_rebuilt(const bundle_files& b, const std::vector<verifier_result>& responses,
                                   std::vector<std::string>& notes);

/// Mode 1's checks, each required by name for a Mode 1 pass.
inline constexpr const char* mode1_checks[] = {"workload_exit", "kernels_on_gpu", "no_cpu_fallback",
                                               "accelerator_components", "scale_as_planned"};

}  // namespace r2r::report::detail
