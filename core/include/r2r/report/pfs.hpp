// SPDX-License-Identifier: MIT
// The Portability Fidelity Score:
//   PFS = Ran × (15 + 35·F_path + 20·A_work + 20·A_env + 10·D_proc)
// Every term is computed here from facts recorded in report.json, so `repo2rocm verify` recomputes
// it from the bundle alone. The grading tables are in docs/bundle.md; each term carries the reason
// for its value in words.
#pragma once

#include <r2r/report/ledger.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace r2r::report {

/// The facts PFS is computed from.
struct pfs_inputs {
  std::string verdict;                           // combined verdict: pass | fail | no_device | error
  std::vector<std::string> evidence_kinds;       // kinds of the verifiers' evidence
  std::vector<std::string> critical_components;  // accelerator-critical components of the plan
  std::vector<ledger_entry> ledger;
  bool workload_planned = false;               // the plan names a workload command
  bool workload_executed = false;              // a verifier ran a workload itself
  bool workload_matches_plan = false;          // ...and it was the plan's command
  bool environment_observed = false;           // the final environment's packages are known
  std::vector<std::string> unpinned_packages;  // final-environment lines without an exact version
  std::vector<std::string> nvidia_packages;    // nvidia-* distributions in the final environment
  bool image_accepted = false;                 // the image used is the plan's base or a ranked candidate
  std::string image_used;
  std::vector<std::string> missing_files;  // bundle parts that had no content to record
};

nlohmann::json to_json(const pfs_inputs& in);  // without verdict, evidence kinds and ledger
/// Reads the fields to_json wrote; verdict, evidence kinds and ledger are left to the caller.
core::result<pfs_inputs> pfs_inputs_from_json(const nlohmann::json& j);

struct pfs_term {
  double value = 0;  // in [0, 1]
  std::string why;
};

struct component_grade {
  std::string component;
  int level = 0;     // worst ledger level of the component on the path (0 when none)
  double grade = 1;  // the F_path table's value for `level`
};

struct pfs_breakdown {
  pfs_term ran, f_path, a_work, a_env, d_proc;
  std::vector<component_grade> components;  // the F_path average's terms
  double score = 0;                         // 0..100, not rounded (report.html shows one decimal)
};

/// Kinds of runtime evidence that make a pass runnable evidence (Ran = 1).
bool is_runtime_evidence(const std::string& kind);

/// F_path grade of a level: D0 1, D1 0.9, D2 0.6, D3 0.3, D4 0, D5 0.
double path_grade(int level);

pfs_breakdown compute_pfs(const pfs_inputs& in);

nlohmann::json to_json(const pfs_breakdown& b);

}  // namespace r2r::report
