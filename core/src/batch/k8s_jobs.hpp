// SPDX-License-Identifier: MIT
// `repo2rocm batch --emit k8s DIR`: one Kubernetes batch/v1 Job manifest (JSON, which kubectl
// accepts) per repository, asking for `amd.com/gpu: 1` (the AMD GPU device plugin's resource) and
// mounting the run directories from a PersistentVolumeClaim, plus a README. Every manifest is checked
// against configs/schema/k8s/job.schema.json (embedded) before it is written; nothing is applied.
// THREADING: pure functions plus file writes.
#pragma once

#include "engine.hpp"
#include "manifest.hpp"

#include <r2r/core/error.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::batch {

struct k8s_options {
  std::string image = "repo2rocm:latest";  // an image with repo2rocm, its plugins and git
  std::string pvc = "repo2rocm-runs";      // claim holding /runs
  std::string namespace_name;              // "" : the context's namespace
  std::string mode = "1";
  std::string arch;
  std::string pipeline;  // a path inside the image, or ""
};

/// A DNS-1123 label for `key` (lower case, [a-z0-9-], at most 63 characters, unique suffix kept).
std::string k8s_name(const std::string& key);

nlohmann::json k8s_job(const manifest_entry& entry, const k8s_options& o);

/// The schema violations of `job`, one line each; empty when valid.
std::vector<std::string> check_k8s_job(const nlohmann::json& job);

/// Writes DIR/<name>.job.json per entry and DIR/README.md; returns the files written.
core::result<std::vector<std::filesystem::path>> emit_k8s(const std::vector<manifest_entry>& entries,
                                                          const k8s_options& o, const std::filesystem::path& dir);

}  // namespace r2r::batch
