// SPDX-License-Identifier: MIT
// The audit bundle of a run (docs/bundle.md): Dockerfile, repo.tar, patch.diff, commands.log,
// plan.json, trajectory.jsonl, report.json, report.html, environment.txt (when observed),
// MANIFEST.sha256 and its Ed25519 signature MANIFEST.sig, written atomically, and its verification.
//
// THREADING: write_bundle and verify_bundle keep no state; two writers of the same directory at
// once are not supported (the last rename wins, neither leaves a half bundle).
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/report/pfs.hpp>
#include <r2r/report/signing.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace r2r::report {

/// One verifier's answer (plugin_api/schemas/verifier/verify.response.schema.json).
struct verifier_result {
  std::string plugin_id;
  std::string version;
  nlohmann::json response;
  /// The verifier's raw evidence (the response's `capture`; null when it keeps none). The bundle
  /// stores it as evidence/<plugin_id>/capture.json and verify re-judges it.
  nlohmann::json capture;
};

/// A command the host ran outside the sandbox (intake, plan, docker build, a verifier run).
struct host_command {
  std::string command;  // secrets (KEY=, TOKEN=, user:pass@ in URLs) are redacted when written
  int exit_code = 0;
  double seconds = 0;
};

struct plugin_version {
  std::string id;
  std::string version;
};

/// Everything a run hands to write_bundle. Paths are read during the call only.
struct bundle_inputs {
  nlohmann::json plan;                      // plan.json (required)
  std::filesystem::path repo_archive;       // the plan's repo.tar: the repository at the pinned commit (required)
  std::string patch_diff;                   // the port's unified diff; empty when nothing was patched
  std::filesystem::path trajectory;         // the executor's trajectory.jsonl (required; may be empty)
  std::filesystem::path commands_log;       // the executor's commands.log (sandbox side); empty path: none
  std::vector<host_command> host_commands;  // host side, in order
  std::vector<verifier_result> verifiers;   // in pipeline order
  int mode = 1;                             // 0, 1 or 2
  std::string repo2rocm_version;
  std::vector<plugin_version> plugins;  // every plugin of the run's pipeline
  std::string image_used;               // the image the final environment ran in
  /// The final environment's `pip freeze` lines; nullopt when not observed.
  std::optional<std::vector<std::string>> environment_freeze;
  double wall_seconds = 0;  // the run's wall time
  /// The host's state directory; its bundle key (<state_dir>/signing, made on first use) signs
  /// MANIFEST.sha256. Required by write_bundle.
  std::filesystem::path state_dir;
};

struct bundle_summary {
  std::filesystem::path dir;
  std::string verdict;
  int exit_code = 0;  // what `repo2rocm run` should exit with for this verdict
  pfs_breakdown pfs;
  std::vector<std::string> files;  // every file written, sorted, MANIFEST.sha256 and MANIFEST.sig included
  std::string key_fingerprint;     // of the host key that signed MANIFEST.sha256
};

/// Writes the bundle to `dir` atomically: into `<dir>.tmp-XXXXXX` beside it, every file and the
/// directory fsynced, then renamed into place (an existing bundle is exchanged atomically with
/// renameat2(RENAME_EXCHANGE) and then removed). On failure nothing exists under `dir` that was
/// not there before and the temporary directory is removed.
core::result<bundle_summary> write_bundle(const bundle_inputs& in, const std::filesystem::path& dir);

/// The report.json document of a run (valid against configs/schema/report.schema.json).
core::result<nlohmann::json> build_report(const bundle_inputs& in, const std::vector<nlohmann::json>& trajectory);

/// Re-judges stored evidence: the verifier kind's `judge` method of plugin `verifier_id` on
/// `request` ({plan, mode, capture}), returning the verify response it gives, running nothing.
using judge_function =
    std::function<core::result<nlohmann::json>(const std::string& verifier_id, const nlohmann::json& request)>;

struct verify_options {
  /// The key the bundle must be signed with (`--trusted-key`, else the host's own key). nullopt:
  /// no key is trusted and every bundle is rejected, saying which key signed it.
  std::optional<public_key> trusted_key;
  std::string trusted_key_source;  // where trusted_key came from, for messages
  /// Re-judges each verifier's stored capture (evidence/<id>/capture.json). Empty: a bundle that
  /// carries evidence is rejected, since its verdict could not be re-derived.
  judge_function judge;
};

struct verify_outcome {
  std::string verdict;  // the recorded verdict, re-derived and found consistent
  double pfs = 0;
  std::string signer;              // fingerprint of the key that signed MANIFEST.sha256
  std::vector<std::string> notes;  // what was checked, one line each
};

/// Re-checks a bundle (docs/bundle.md "repo2rocm verify"): MANIFEST.sig is a valid signature of
/// MANIFEST.sha256 by the trusted key; the manifest lists exactly the other files with their
/// hashes; repo.tar is a complete archive that patch.diff applies to; trajectory.jsonl is not empty
/// when the run executed; report.json is valid against its schema and equal to the report rebuilt
/// from plan.json, trajectory.jsonl, commands.log, environment.txt and the verifiers' responses
/// (ledger, verdict, PFS and its inputs recomputed, nothing read from pfs.inputs); each verifier's
/// stored evidence (evidence/<id>/capture.json) is re-judged through options.judge and its response
/// replaces the recorded one, so no stored verdict is trusted; a Mode 1 pass has Mode 1's five
/// checks and stored evidence that re-judges to them; report.html and the Dockerfile are the
/// renderings of those files. Errors name the file and what is wrong, never the value a forger
/// would need.
core::result<verify_outcome> verify_bundle(const std::filesystem::path& dir, const verify_options& options);

/// The bundle's Dockerfile for `plan` and the executor's `trajectory` (the same text write_bundle
/// writes): the plan's Dockerfile, the patch step when `with_patch`, and every successful install
/// of the trajectory with its index. The run's verify stage builds it. Throws
/// nlohmann::json::exception when the plan cannot be rendered.
std::string render_bundle_dockerfile(const nlohmann::json& plan, const std::vector<nlohmann::json>& trajectory,
                                     bool with_patch);

/// The run's verdict from the verifiers' verdicts: pass only when there is at least one and all
/// passed; otherwise the most severe present, in order error, no_device, fail; none: error.
std::string combine_verdicts(const std::vector<std::string>& verdicts);

/// Exit code of a verdict: pass 0, fail 3, no_device 4, error 1 (README "Exit codes").
int exit_code_of(const std::string& verdict);

}  // namespace r2r::report
