// SPDX-License-Identifier: MIT
// batch.json: the state of a batch, a checkpoint replaced atomically (at most about once a second
// while jobs change, at once when a cap stops the batch, and at the end). A job moves pending ->
// submitting (its attempt's state directory jobs/<key>/a<N> is created BEFORE the scheduler is
// asked, so a kill before the next checkpoint leaves a directory that the resumed batch finds with
// reconcile_attempts and re-submits idempotently) -> submitted -> done; or pending -> not_started
// (a spend cap stopped the batch). A checkpoint older than the jobs is safe: a job it still shows
// submitted is asked about again and collected (its events may repeat). Retries of an
// infrastructure failure go back to pending with attempt+1 and a new state directory; the run
// directory stays, so `repo2rocm run` resumes its completed stages. THREADING: owned by the engine.
#pragma once

#include "manifest.hpp"
#include "run_outcome.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace r2r::batch {

struct job_record {
  manifest_entry entry;
  std::string run_dir;            // absolute
  std::string state = "pending";  // pending, submitting, submitted, done, not_started
  int attempt = 0;                // attempts submitted so far (the current one while submitting/submitted)
  std::string state_dir;          // the current attempt's scheduler state directory
  std::string scheduler_id;
  std::string scheduler_state;  // last state the scheduler reported
  std::string result;           // when done/not_started: verified, not_verified, no_device, baseline_ran,
                                // baseline_failed, error, cancelled, not_started
  std::string reason;           // why (failed checks, failed stage, "spend cap", infrastructure failure)
  std::optional<int> exit_code;
  std::string gpu, node;
  double submitted_at = 0, started_at = 0, finished_at = 0;
  double retry_at = 0;   // pending: not before this time (back-off)
  long long tokens = 0;  // from the run directory once done
  double usd = 0;
};

struct spend {
  long long tokens = 0;
  double usd = 0;
  double gpu_hours = 0;
};

struct caps {
  std::optional<long long> max_tokens;
  std::optional<double> max_usd;
  std::optional<double> max_gpu_hours;
};

struct batch_state {
  int schema_version = 1;
  std::string manifest;   // absolute path
  std::string scheduler;  // plugin id
  nlohmann::json options = nlohmann::json::object();
  caps limits;
  spend spent;
  std::string stopped;  // "" or why submitting stopped (e.g. "spend cap: max_usd 0.50 reached (0.61 spent)")
  bool finished = false;
  double created_at = 0, updated_at = 0;
  std::vector<job_record> jobs;
};

nlohmann::json to_json(const job_record& j);
job_record job_from_json(const nlohmann::json& j);
nlohmann::json to_json(const batch_state& s);
batch_state state_from_json(const nlohmann::json& j);

/// Loads OUT/batch.json; nullopt when absent. Throws std::runtime_error when unreadable.
std::optional<batch_state> load_state(const std::filesystem::path& out_dir);
void save_state(const std::filesystem::path& out_dir, batch_state& s);

/// For a batch.json older than the jobs: every unfinished job (pending, submitting, submitted)
/// whose OUT/jobs/<key>/ holds an attempt directory a<N> with N above its recorded attempt becomes
/// `submitting` attempt N in that directory. Returns the keys changed.
std::vector<std::string> reconcile_attempts(const std::filesystem::path& out_dir, batch_state& s);

}  // namespace r2r::batch
