// SPDX-License-Identifier: MIT
// The environment stage's asset step (issue 14 part 4): the plan's `assets` with fetch=true are
// fetched by repo2rocm itself (asset_cache.hpp, libcurl, the Hub's HTTP API), never by repository
// code and never from inside a sandbox, into RUN_DIR/assets; every sandbox of the run then gets
// that directory read-only at /opt/r2r-assets with the hub offline.
// Contracts:
//   - the endpoint is HF_ENDPOINT (a mirror) or https://huggingface.co; the token is HF_TOKEN (or
//     HUGGING_FACE_HUB_TOKEN), sent to the endpoint's host only and written nowhere;
//   - under the sandbox network policy `none` nothing is fetched;
//   - an asset that is gated (401/403) or missing (404), or that cannot be fetched under `none`,
//     ends the run not_verified, naming it and the file:line that asks for it (ctx.verdict is set
//     and the stage fails); a transport failure fails the stage (exit 1) saying what to check;
//   - an asset already in the cache with its recorded sha256 and size is not fetched again.
#pragma once

#include "asset_cache.hpp"
#include "run_context.hpp"

#include <nlohmann/json.hpp>

namespace r2r::run {

/// Where the cache is mounted inside every sandbox of the run.
inline constexpr const char* assets_mount = "/opt/r2r-assets";

struct assets_step {
  bool ok = true;                                    // false: the stage fails with `message`
  std::string message;                               // one line for the stage's message
  nlohmann::json results = nlohmann::json::array();  // per asset: kind, id, revision, status, files, bytes
};

/// The Hub endpoint (HF_ENDPOINT without trailing '/', else https://huggingface.co) and token
/// (HF_TOKEN, else HUGGING_FACE_HUB_TOKEN) from repo2rocm's environment.
assets::hub_source hub_source_from_environment();

/// Fetches the plan's assets into RUN_DIR/assets (sets ctx.assets_dir when any is there).
assets_step fetch_plan_assets(run_context& ctx);

/// Adds the read-only mount of RUN_DIR/assets and HF_HOME, HF_HUB_OFFLINE=1, TRANSFORMERS_OFFLINE=1,
/// HF_DATASETS_OFFLINE=1, HF_DATASETS_CACHE (a writable /tmp path) and TORCH_HOME to a create
/// request, when the run has assets; leaves it as it is otherwise.
void add_asset_mount(const run_context& ctx, nlohmann::json& create_request);

}  // namespace r2r::run
