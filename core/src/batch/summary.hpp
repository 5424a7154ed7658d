// SPDX-License-Identifier: MIT
// The batch summary: one row per repository (verdict, failed checks or stage, Mode 0 result, PFS,
// turns, tokens, USD, wall time, GPU) and totals in the paper's form ("Mode 0 18/60 · Mode 1 59/60 ·
// PFS mean 77.3"), written as summary.json, summary.csv and a self-contained summary.html (inline
// CSS and an inline SVG plot of time and tokens per repository; no script, no external resource).
// THREADING: pure functions plus file writes.
#pragma once

#include "batch_state.hpp"
#include "run_outcome.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace r2r::batch {

struct summary_row {
  std::string key, repo, commit, mode;
  std::string
      result;  // verified, not_verified, no_device, baseline_ran, baseline_failed, error, cancelled, not_started
  std::string detail;  // failed checks, failed stage, or why not started
  std::optional<int> exit_code;
  std::optional<double> pfs;
  long long turns = 0, tokens = 0;
  double usd = 0, wall_seconds = 0;
  std::string gpu, node;
  int attempts = 0;
  int runs_started = 0;
};

summary_row row_from(const job_record& job, const run_outcome& run);
/// A row from a run directory alone (`batch report`); key = the directory's name.
summary_row row_from_run_dir(const std::filesystem::path& run_dir);

/// {"rows": [...], "totals": {...}, "headline": "Mode 0 a/b · Mode 1 c/d · PFS mean x", "stopped": ...}
nlohmann::json build_summary(const std::vector<summary_row>& rows, const std::string& stopped, const spend& spent);

/// Writes summary.json, summary.csv and summary.html into `dir` (each atomically).
void write_summary(const std::filesystem::path& dir, const nlohmann::json& summary);

std::string summary_csv(const nlohmann::json& summary);
std::string summary_html(const nlohmann::json& summary);

}  // namespace r2r::batch
