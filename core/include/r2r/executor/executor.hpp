// SPDX-License-Identifier: MIT
// The guarded executor: the turn loop that asks the pipeline's `policy` stage for one action,
// validates it against plugin_api/schemas/action.schema.json, puts it through every `guard` stage,
// runs it in the `sandbox` stage, and appends one fsync'd line per turn to RUN_DIR/trajectory.jsonl.
// docs/executor.md describes the loop, the trajectory format, caps, the stuck detector,
// checkpoints and resume.
//
// OWNERSHIP: run() and resume() borrow the session for their duration; the session must hold
// exactly one `policy` stage and one `sandbox` stage (or the one
// named by run_options::sandbox_stage). THREADING: one run per session at a time; the
// hooks are called on the calling thread.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/executor/observation.hpp>
#include <r2r/executor/stuck_detector.hpp>
#include <r2r/sdk/kinds/policy.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace r2r::executor {

using hint = sdk::policy::hint;
using turn_record = sdk::policy::turn_record;

/// Run limits; a negative value means "not capped".
struct caps {
  std::int64_t max_turns = 40;
  double max_seconds = 3600;
  std::int64_t max_tokens = -1;  // input + output tokens reported by the policy
  double max_usd = -1;           // cost reported by the policy
};

struct checkpoint_options {
  // Action types whose success is a milestone: the sandbox is checkpointed right after.
  std::vector<std::string> milestones{"install", "build_kernel"};
  // Failed risky actions are rolled back to the last checkpoint.
  bool rollback_failed_risky = true;
  // A checkpoint is taken right before every risky action, so that rollback undoes only it.
  bool before_risky = true;
};

/// What a memory records: after a turn that failed with `signature`, the next action and how it went.
struct outcome_event {
  std::string signature;
  nlohmann::json fix_action;
  bool fixed = false;  // the next action succeeded
  std::int64_t turn = 0;
};

struct run_options {
  std::filesystem::path run_dir;        // created; must be empty or absent
  std::filesystem::path pipeline_file;  // recorded in run.json (path and content hash) for resume
  nlohmann::json plan = nlohmann::json::object();
  std::filesystem::path workspace_source;  // copied into RUN_DIR/workspace at start; empty: none
  std::string image;                       // first image; empty: plan.base_image.reference when present
  int mode = 1;
  std::string arch;
  executor::caps caps;
  compaction_options compaction;
  stuck_options stuck;
  checkpoint_options checkpoints;
  double command_timeout_s = 0;  // per sandbox exec; 0: the sandbox plugin's default
  // Most recent turns sent to the policy (0: all). Bounded by default so a turn costs the same at
  // turn 300 as at turn 3 (bench/README.md); policies keep what they need of older turns in `state`.
  std::int64_t history_turns = 32;
  // Extra fields of the sandbox `create` request (limits, network, pinned GPU, env), recorded in
  // run.json; `workspace` and `image` are always the executor's own.
  nlohmann::json sandbox_create = nlohmann::json::object();
  // The name of the `sandbox` stage to run in, when the pipeline lists several (alternatives, of
  // which the caller chose the one that answers); empty: the pipeline must hold exactly one.
  // Recorded in run.json, so resume() uses the same one.
  std::string sandbox_stage;

  // Optional hooks (not recorded; give them again to resume()).
  std::function<std::vector<hint>(const turn_record& last)> hints_provider;
  std::function<void(const outcome_event&)> on_outcome;
  // Called before a claim_success is guard-checked; returns {ran, passed} for the current workspace
  // state. Without it, verifier_ran and verifier_passed are false.
  std::function<std::pair<bool, bool>()> verify;
};

enum class outcome_kind { claimed, gave_up, cap_reached, stuck, error };
std::string_view to_string(outcome_kind k) noexcept;

struct run_outcome {
  outcome_kind kind = outcome_kind::error;
  std::string reason;
  std::int64_t turns = 0;  // lines in trajectory.jsonl
  std::filesystem::path run_dir;
};

/// Starts a run in options.run_dir. Errors (phase::config or io) when the session lacks a stage
/// or RUN_DIR cannot be prepared; everything that happens during turns is an outcome instead.
core::result<run_outcome> run(core::pipeline_session& session, const run_options& options);

/// Hooks resume() cannot read from RUN_DIR.
struct resume_hooks {
  std::function<std::vector<hint>(const turn_record& last)> hints_provider;
  std::function<void(const outcome_event&)> on_outcome;
  std::function<std::pair<bool, bool>()> verify;
};

/// Continues the run in run_dir (see docs/executor.md, "Resume"). The session must come from the
/// pipeline file recorded in run.json, unchanged (its hash is checked). `report` receives one line
/// per repair made (a discarded torn line, the snapshot restored).
core::result<run_outcome> resume(core::pipeline_session& session, const std::filesystem::path& run_dir,
                                 const resume_hooks& hooks = {},
                                 const std::function<void(const std::string&)>& report = {});

/// Reads RUN_DIR/run.json's pipeline path (to build the session before resume()).
core::result<std::filesystem::path> recorded_pipeline(const std::filesystem::path& run_dir);

}  // namespace r2r::executor
