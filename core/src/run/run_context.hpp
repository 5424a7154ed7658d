// SPDX-License-Identifier: MIT
// The state of one `repo2rocm run` shared by its stages, and the stage seam.
//
// A stage is a stage_step: a name, a function that does the work and returns a stage_result, and
// (for resumable stages) a function that reloads the stage's state from its outputs when a
// resumed run skips it. The engine (engine.cpp) registers every step as a handler of the one
// core::stage_runner, which keeps the resume markers.
// OWNERSHIP: the engine owns the registry, the pipeline session (and through it every plugin
// instance, the sandbox included) and the progress display for the whole run; run_context borrows
// them. THREADING: stages run one after another on the calling thread.
#pragma once

#include "run_progress.hpp"

#include <r2r/core/gpu_topology.hpp>
#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_registry.hpp>
#include <r2r/run/engine.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace r2r::run {

/// The sandbox the run executes in: the pipeline's `sandbox` stage that answered first and, for
/// container engines, the image the environment stage built from the plan.
struct sandbox_handle {
  std::string stage;                                 // its stage name in the pipeline
  std::string plugin_id;                             // r2r.sandbox.docker, r2r.sandbox.local, ...
  nlohmann::json config = nlohmann::json::object();  // its config in the pipeline
  std::string engine;                                // docker, podman, local (as the plugin's info says)
  std::string image;                                 // built environment image (container engines); empty for local
  core::plugin_instance* instance = nullptr;         // owned by the session
};

/// A run's end as the verify stage states it. status: verified, not_verified, no_device.
struct run_verdict {
  std::string status;
  std::vector<std::string> failed_checks;  // for not_verified: each failed check, one line each
  std::string message;
  nlohmann::json details = nlohmann::json::object();  // the verifiers' report, bundled as is
};

struct run_context {
  run_options options;
  const core::pipeline_config* pipeline = nullptr;  // the run pipeline (validated)
  const core::plugin_registry* registry = nullptr;  // loaded once, from the pipeline's search path
  core::pipeline_session* session = nullptr;        // every plugin instance of the run
  run_progress* progress = nullptr;

  std::filesystem::path run_dir;       // absolute; set by the intake stage when options.run_dir is empty
  nlohmann::json intake;               // {source, url, commit, repo}
  nlohmann::json fingerprint;          // fingerprint.json
  nlohmann::json plan;                 // plan.json
  nlohmann::json convert;              // convert.json (modes 1 and 2)
  core::gpu_discovery gpus;            // AMD GPUs of this host
  std::optional<core::gpu_pin> gpu;    // the GPU the sandbox is pinned to; empty: no ROCm device
  sandbox_handle sandbox;              // set by the environment stage
  std::filesystem::path assets_dir;    // RUN_DIR/assets when the environment stage fetched the plan's assets
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
  std::function<stage_result(run_context&)> run;
  /// Resumable stages: reloads the context from the stage's outputs and marker results when a
  /// resumed run skips the stage. Empty: the stage always runs again.
  std::function<core::result<void>(run_context&, const nlohmann::json& results)> restore;
};

}  // namespace r2r::run
