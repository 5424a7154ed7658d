// SPDX-License-Identifier: MIT
// The run engine: one `repo2rocm run` from a validated pipeline file. One engine per run owns one
// plugin registry, one pipeline session (every plugin instance the run uses, created once from the
// pipeline file: ranker, converters, sandbox, policy, guards, verifiers) and the progress display.
// The stages intake, plan, port, environment, execute, verify and bundle are handlers of the one
// core::stage_runner, with resume markers; last_stage ends a run early (docs/run.md).
// OWNERSHIP: the engine owns everything it creates; run() may be called once.
// THREADING: one thread.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/search_path.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace r2r::run {

struct run_options {
  std::string source;               // URL or local git repository, as given
  std::string commit;               // --commit; empty: default branch
  int mode = 1;                     // 0 baseline, 1 functional reproduction, 2 + metrics
  std::string arch;                 // normalised gfx target; empty: plan without arch
  std::optional<int> gpu;           // --gpu N
  std::string base_image;           // --base-image; empty: the ranker's choice
  std::filesystem::path run_dir;    // --run-dir (absolute); empty: runs/<repo>-<commit12>-<utc>
  std::filesystem::path cache_dir;  // clones
  std::filesystem::path state_dir;  // image failures, the bundle key
  std::filesystem::path paper;      // --paper: a file (absolute) or an http(s) URL as given; empty: none
  bool no_pull = false;             // --no-pull: a base image missing from the engine fails the run, never pulled
};

/// The stages of a run, in order, for `mode` (mode 0: intake, plan, environment, execute, where
/// execute runs the README's own commands; modes 1 and 2: all seven).
std::vector<std::string> stage_order(int mode);

/// The stages every run pipeline must hold (at least one entry each), with what each is for.
struct required_stage {
  const char* stage;
  const char* why;
};
const std::vector<required_stage>& required_stages(int mode);

/// Problems of `config` as a run pipeline: each missing required stage, with the JSON pointer
/// "/pipeline" and what to add. Empty when it can run.
std::vector<core::config_problem> check_run_pipeline(const core::pipeline_config& config, int mode);

struct engine_options {
  run_options run;
  core::pipeline_config pipeline;                  // parsed and schema-valid
  std::string pipeline_label;                      // recorded in run.json ("(built-in) run" or the file)
  std::vector<core::search_location> search_path;  // where the registry is loaded from (once)
  /// The last stage to run (a name from stage_order); empty: every stage. The stages before it run
  /// (or resume) as in a full run; the run ends "stopped" (exit 0) after it.
  std::string last_stage;
  bool live = false;  // a terminal display on err; otherwise JSON events on out
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
};

/// How a run ended: outcome (verified, not_verified, no_device, baseline_ran, baseline_failed,
/// stopped (the stage range ended early, as asked), error), the exit code of docs/run.md, a line.
struct run_ending {
  std::string outcome;
  int code = 1;
  std::string message;
  nlohmann::json details = nlohmann::json::object();
};

class engine {
 public:
  /// Checks the options and the run directory, loads the registry once, checks every plugin of the
  /// pipeline against it and creates the session. Errors: phase usage or config (exit 2), others 1.
  static core::result<std::unique_ptr<engine>> create(engine_options options);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// Runs the stage range; emits progress and the verdict event.
  run_ending run();

  /// What the run used: every pipeline entry with its plugin id and version, the sandbox chosen.
  nlohmann::json plugins_used() const;

 private:
  struct impl;
  explicit engine(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace r2r::run
