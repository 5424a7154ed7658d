// SPDX-License-Identifier: MIT
// The state of one `repo2rocm run` shared by its stages, and the stage seam.
//
// A stage is a stage_step: a name, a function that does the work and returns a stage_result, and
// (for resumable stages) a function that reloads the stage's state from its outputs when a
// resumed run skips it. Stages that are not part of this build have no function: the runner
// reports them "unavailable" with `unavailable_reason` and the run ends with exit 1, never with a
// verdict. The executor, the verifiers and the bundle writer plug in through run_hooks
// (run_hooks.cpp).
// OWNERSHIP: run_context owns the sandbox instance (and the registry it came from) for the whole
// run; stages borrow it. THREADING: stages run one after another on the calling thread.
#pragma once

#include "cli_context.hpp"
#include "run_progress.hpp"

#include <r2r/core/gpu_topology.hpp>
#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace r2r::cli::run {

struct run_options {
  std::string source;               // URL or local git repository, as given
  std::string commit;               // --commit; empty: default branch
  int mode = 1;                     // 0 baseline, 1 functional reproduction, 2 + metrics
  std::string arch;                 // normalised gfx target; empty: plan without arch, build check for gfx90a
  std::optional<int> gpu;           // --gpu N
  std::string base_image;           // --base-image; empty: the ranker's choice
  std::filesystem::path run_dir;    // --run-dir (absolute); empty: runs/<repo>-<commit12>-<utc>
  std::filesystem::path cache_dir;  // clones
  std::filesystem::path state_dir;  // image failures
  std::filesystem::path paper;      // --paper (absolute); empty: none
};

/// The sandbox the run executes in: a plugin instance and, for container engines, the image the
/// environment stage built from the plan.
struct sandbox_handle {
  std::string plugin_id;                             // r2r.sandbox.docker, r2r.sandbox.local, or the pipeline's
  nlohmann::json config = nlohmann::json::object();  // the plugin config it was created with (engine socket)
  std::string engine;                                // docker, podman, local (as the plugin's info says)
  std::string image;                                 // built environment image (container engines); empty for local
  std::unique_ptr<core::plugin_instance> instance;
};

/// A run's end as the verify stage states it. status: verified, not_verified, no_device.
struct run_verdict {
  std::string status;
  std::vector<std::string> failed_checks;  // for not_verified: each failed check, one line each
  std::string message;
  nlohmann::json details = nlohmann::json::object();  // the verifiers' report, bundled as is
};

struct run_context {
  const cli_context* cli = nullptr;
  run_options options;
  const core::pipeline_config* pipeline = nullptr;  // the run pipeline (validated)
  const core::plugin_registry* registry = nullptr;  // loaded from the pipeline's search path
  run_progress* progress = nullptr;

  std::filesystem::path run_dir;       // absolute; set by the intake stage when options.run_dir is empty
  nlohmann::json intake;               // {source, url, commit, repo}
  nlohmann::json fingerprint;          // fingerprint.json
  nlohmann::json plan;                 // plan.json
  nlohmann::json convert;              // convert.json (modes 1 and 2)
  core::gpu_discovery gpus;            // AMD GPUs of this host
  std::optional<core::gpu_pin> gpu;    // the GPU the sandbox is pinned to; empty: no ROCm device
  sandbox_handle sandbox;              // set by the environment stage
  nlohmann::json baseline;             // mode 0: the outcome of the README's steps
  std::optional<run_verdict> verdict;  // set by the verify stage (modes 1 and 2)

  std::filesystem::path source_dir() const { return run_dir / "source"; }
  std::filesystem::path workspace_dir() const { return run_dir / "workspace"; }
};

struct stage_result {
  std::string status = "ok";                          // ok, failed, unavailable, skipped
  std::string message;                                // one line for people
  nlohmann::json results = nlohmann::json::object();  // key results, in the stage_finished event
  std::vector<std::string> outputs;                   // files or directories under the run dir it wrote
  bool usage = false;  // failed because of what the operator asked for (exit 2), e.g. an unknown commit
};

struct stage_step {
  std::string name;
  std::function<stage_result(run_context&)> run;  // empty: not available in this build
  std::string unavailable_reason;                 // what is missing, when run is empty
  /// Resumable stages: reloads the context from the stage's outputs and marker results when a
  /// resumed run skips the stage. Empty: the stage always runs again.
  std::function<core::result<void>(run_context&, const nlohmann::json& results)> restore;
};

/// The seams of the stages that other parts of repo2rocm provide. An empty function means the
/// part is not in this build.
struct run_hooks {
  std::function<stage_result(run_context&)> execute;  // modes 1, 2: policy, guards, sandbox -> trajectory.jsonl
  std::function<stage_result(run_context&)> verify;   // modes 1, 2: must set ctx.verdict when ok
  std::function<stage_result(run_context&)> bundle;   // modes 1, 2: RUN_DIR/bundle
};

/// The hooks of this build (run_hooks.cpp).
run_hooks build_hooks();

}  // namespace r2r::cli::run
