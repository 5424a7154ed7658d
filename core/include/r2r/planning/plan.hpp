// SPDX-License-Identifier: MIT
// From a fingerprint and a ranking to plan.json (schema configs/schema/plan.schema.json) and a
// Dockerfile. Contracts:
//   - install steps keep the base image's ROCm framework builds: torch/torchvision/torchaudio/
//     triton/jaxlib... are never installed from PyPI, `nvidia-*` wheels and CUDA wheel indices are
//     dropped, `+cuXXX` local versions are removed, and every pip step runs with the image's own
//     framework versions as constraints;
//   - the workload is an official command (training, inference, evaluation or a forward pass):
//     never `--help`, `--version` or a bare import; when none exists the plan says so (workload null);
//   - a Mode 2 metric is recorded only when the README states exactly one metric value, or, with a
//     paper (plan_inputs.paper), only when exactly one of the paper's results is tied to the
//     workload by name (paper/target.hpp); the plan then carries a `paper` section listing the
//     candidates and the README is not consulted for the metric.
#pragma once

#include <r2r/paper/document.hpp>
#include <r2r/paper/rank.hpp>
#include <r2r/planning/fingerprint.hpp>
#include <r2r/planning/intake.hpp>
#include <r2r/planning/knowledge.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::planning {

struct plan_inputs {
  const fingerprint* fp = nullptr;
  std::string arch;                        // target gfx; empty: unknown
  nlohmann::json ranking;                  // ranker.rank response
  std::string base_image_override;         // --base-image; empty: the top candidate
  const paper::document* paper = nullptr;  // --paper, loaded; null: none (borrowed for the call)
  std::filesystem::path tree;              // the checked-out repository, read for the paper's tie
  paper::model_call paper_model;           // the pipeline's `paper-rank` llm instance; empty: none
  std::string paper_model_instance;        // its instance name, for the plan
  std::vector<intake_note> notes;          // from the intake: plan.json `notes` and a hazard each
  std::string content_hash;                // a plain directory's content hash (intake_result::content_hash)
};

/// Builds plan.json. Throws nothing for repository content; a ranking without candidates and no
/// override gives a plan whose base_image.ref is empty and a blocking hazard saying why.
nlohmann::json build_plan(const plan_inputs& in, const knowledge& k);

/// Renders the Dockerfile of a plan. The build context is the output directory: the repository at
/// the pinned commit in `repo.tar` (extracted by ADD), and `patch_file` (relative to the context) when not empty.
std::string render_dockerfile(const nlohmann::json& plan, const std::string& patch_file = "");

/// The ranker request for a fingerprint (self-contained: the catalog travels in it).
nlohmann::json make_rank_request(const fingerprint& fp, const std::string& arch, const nlohmann::json& catalog,
                                 const std::vector<std::string>& local_images, const nlohmann::json& failures);

/// Image failures per host arch, persisted in `<state_dir>/image-failures.json`.
/// THREADING/PROCESSES: read-modify-write without locking; one writer at a time.
nlohmann::json load_image_failures(const std::filesystem::path& state_dir);
/// Adds one failure of `ref` on `arch`; returns the new count. Throws std::runtime_error on I/O errors.
int record_image_failure(const std::filesystem::path& state_dir, const std::string& arch, const std::string& ref,
                         const std::string& kind);

}  // namespace r2r::planning
