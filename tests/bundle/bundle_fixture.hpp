// SPDX-License-Identifier: MIT
// A complete, realistic set of bundle inputs written under a temporary directory: a plan whose
// base image, install steps and workload run in a busybox image, the repository archive, a
// trajectory with guard decisions and installs, a commands.log and one verifier response.
#pragma once

#include <r2r/report/bundle.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::test {

struct bundle_fixture_options {
  std::string verdict = "pass";  // of the verifier response
  std::string base_image = "local/r2r-bundle-base:test";
  std::string workload = "cat /workspace/repo/train.py";
  std::string executed_workload;            // empty: the planned workload
  std::vector<std::string> extra_commands;  // appended to the trajectory as run actions (for escaping tests)
};

/// Writes repo/ (and repo.tar), trajectory.jsonl and commands.log under `dir`; returns inputs
/// referring to them.
r2r::report::bundle_inputs make_bundle_inputs(const std::filesystem::path& dir,
                                              const bundle_fixture_options& options = {});

/// One trajectory line (JSON object) as the executor writes it.
std::string trajectory_line(int turn, const std::string& type, const std::string& command, const std::string& decision,
                            int exit_code, const std::string& ledger_json = "[]", const std::string& guard = "");

}  // namespace r2r::test
