// SPDX-License-Identifier: MIT
// A complete, realistic set of bundle inputs written under a temporary directory: a plan whose
// base image, install steps and workload run in a busybox image, the repository archive, a
// trajectory with guard decisions and installs, a commands.log and one verifier response.
#pragma once

#include "../unit/test_support.hpp"

#include <r2r/report/bundle.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace r2r::test {

struct bundle_fixture_options {
  std::string verdict = "pass";  // of the verifier response
  std::string base_image = "local/r2r-bundle-base:test";
  std::string workload = "cat /workspace/repo/train.py";
  std::string executed_workload;            // empty: the planned workload
  std::vector<std::string> extra_commands;  // appended to the trajectory as run actions (for escaping tests)
  /// The verifier is r2r.verifier.mode1-cuda judging a real capture made on the H200
  /// (tests/data/h200/trust/captures): the honest workload for "pass", examples/cpu-cheat for
  /// "fail"; the plan's workload is that capture's command and it has no kernel builds. The response
  /// is the plugin's own `judge` answer and the capture is stored in the bundle.
  bool judged = false;
};

/// Writes repo/ (and repo.tar), trajectory.jsonl and commands.log under `dir`; returns inputs
/// referring to them, with `dir`/state as the state directory (the bundle key is made there).
r2r::report::bundle_inputs make_bundle_inputs(const std::filesystem::path& dir,
                                              const bundle_fixture_options& options = {});

/// One trajectory line (JSON object) as the executor writes it.
std::string trajectory_line(int turn, const std::string& type, const std::string& command, const std::string& decision,
                            int exit_code, const std::string& ledger_json = "[]", const std::string& guard = "");

/// A file's bytes ("" when unreadable).
std::string slurp(const std::filesystem::path& file);

/// Rewrites MANIFEST.sha256 for the bundle's current files, as a forger without the key would
/// (MANIFEST.sig is left as it was).
void reseal(const std::filesystem::path& bundle);

/// Rewrites MANIFEST.sha256 and signs it with the key under `state_dir` (made there when missing):
/// the host's own state directory models a forger holding the host key (only the recomputation is
/// left to stop it); any other directory, a forger's own key.
void resign(const std::filesystem::path& bundle, const std::filesystem::path& state_dir);

/// Parses `file` as JSON, applies `edit`, writes it back.
void edit_json(const std::filesystem::path& file, const std::function<void(nlohmann::json&)>& edit);

/// The capture tests/data/h200/trust/captures/<name>.capture.json.
nlohmann::json h200_capture(const std::string& name);

/// `repo2rocm verify BUNDLE ARGS`.
process_result verify_bundle_cli(const std::filesystem::path& bundle, const std::string& args);

}  // namespace r2r::test
