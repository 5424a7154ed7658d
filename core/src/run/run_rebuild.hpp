// SPDX-License-Identifier: MIT
// The verify stage's first step: is the environment that ships the one that ran? It builds the
// bundle's Dockerfile (report::render_bundle_dockerfile: the plan, patch.diff and every install
// the executor made) through the sandbox's image_build in a context of its own
// (RUN_DIR/verify/context: Dockerfile, repo.tar, patch.diff), with no layer cache at all, so
// nothing of the executor's container can reach it; the build gets the sandbox's network and
// package index for its installs. Then the workload command that last exited 0 in the
// executor's environment runs again in a sandbox of the rebuilt image on the final workspace
// with no network. A Dockerfile that does not build, or a workload that fails only in the
// rebuilt image, is "environment not reproducible".
// The local sandbox has no image: nothing is rebuilt, and the record says so.
// OWNERSHIP: the rebuilt image belongs to the sandbox plugin instance (removed with it).
#pragma once

#include "run_context.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace r2r::run {

struct rebuild_result {
  /// rebuilt: the image was built and the workload probe (when there is one) passed;
  /// not_rebuilt: no image to rebuild (local sandbox); not_reproducible: see message.
  std::string status;
  std::string image;    // the rebuilt image id ("sha256:…"); empty when none was built
  std::string message;  // one line for people; for not_reproducible it names the failing step
  nlohmann::json record = nlohmann::json::object();  // verify.json "environment"
};

rebuild_result rebuild_environment(run_context& ctx);

}  // namespace r2r::run
