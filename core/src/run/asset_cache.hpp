// SPDX-License-Identifier: MIT
// The run's asset cache, RUN_DIR/assets, filled by repo2rocm itself over HTTP (support/http get.hpp):
//   hf/hub/models--ORG--NAME/{blobs/<sha256>, snapshots/<commit>/<path> -> ../../blobs/<sha256>,
//   refs/<revision>}   (datasets: datasets--ORG--NAME), the layout huggingface_hub reads offline
//   under HF_HOME=…/hf;
//   url/<sha256 of the URL>/<file name>   for plain URLs;
//   manifest.json   what is there: per asset its commit and files with sha256 and size.
// Hub protocol: GET {endpoint}/api/{models|datasets}/{id}/revision/{rev} for the commit and the
// file list, GET {endpoint}/[datasets/]{id}/resolve/{commit}/{path} for each file.
// Resume: a file whose blob is on disk with the manifest's size and sha256 is not fetched again;
// an asset whose every file is so is not asked about at all.
// Contracts: a file name from the server that is absolute, holds `..`, a backslash or an empty
// part is refused (the asset fails); blobs are written to a temporary name and renamed when their
// sha256 is known, so a killed fetch leaves no half blob under a final name.
// THREADING: one caller at a time per cache directory.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace r2r::run::assets {

struct hub_source {
  std::string endpoint;  // e.g. https://huggingface.co (no trailing slash)
  std::string token;     // bearer token; empty: anonymous. Never written anywhere.
};

/// One asset's fetch. status: fetched, cached, missing (404), gated (401/403), failed (anything
/// else: transport, bad answer, disk).
struct fetch_outcome {
  std::string status;
  std::string reason;  // for every status but fetched/cached: what happened and what to do
  nlohmann::json record = nlohmann::json::object();  // the manifest entry (kind, id, revision, commit, files)
  int downloaded = 0;                                // files fetched now
  std::uintmax_t bytes = 0;                          // bytes fetched now
};

using progress_fn = std::function<void(const std::string&)>;

/// Fetches one plan asset (`kind` hf_model, hf_dataset or url; `id`; `revision`) into `cache`
/// (RUN_DIR/assets). `known`: its entry in the previous manifest, or null.
fetch_outcome fetch_asset(const nlohmann::json& asset, const std::filesystem::path& cache, const hub_source& hub,
                          const nlohmann::json& known, const progress_fn& progress);

}  // namespace r2r::run::assets
