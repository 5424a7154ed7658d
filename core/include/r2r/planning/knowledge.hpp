// SPDX-License-Identifier: MIT
// The data tables planning relies on (configs/knowledge/*.json and configs/images/rocm.json),
// embedded in the binary at build time so an installed repo2rocm needs no source tree.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace r2r::planning {

/// How a CUDA-sensitive package is handled on ROCm (configs/knowledge/cuda_packages.json).
struct package_rule {
  std::string action;   // keep_image, never, replace, rocm_build, no_rocm
  std::string with;     // replacement package (replace)
  std::string install;  // install command template; "{arch}" is the target gfx
  std::string note;
  std::string alternative;  // the ROCm path in words ("pytorch-triton-rocm", "faiss-cpu (degradation)")
};

struct knowledge {
  std::set<std::string> stdlib;                                // top-level standard-library modules
  std::map<std::string, std::string> import_to_package;        // "cv2" -> "opencv-python"
  std::map<std::string, std::vector<std::string>> frameworks;  // "torch" -> {"torch", "lightning", ...}
  std::map<std::string, package_rule> packages;                // normalised name -> rule
  std::map<std::string, package_rule> prefixes;                // "nvidia-" -> rule
  // Extras that select a CUDA build of an otherwise portable package: package -> (extra prefix,
  // rule), e.g. jax[cuda12] or aqlm[gpu].
  std::map<std::string, std::vector<std::pair<std::string, package_rule>>> extras;
  nlohmann::json catalog;  // configs/images/rocm.json

  /// The rule for a normalised package name (exact name first, then the longest prefix), or null.
  const package_rule* rule_for(std::string_view normalised_name) const;
  /// The rule of a CUDA extra of a package (jax[cuda12]), or null.
  const package_rule* extra_rule_for(std::string_view normalised_name, std::string_view extra) const;
  /// The distribution name of a top-level import (PEP 503-normalised).
  std::string package_of_import(std::string_view module) const;
};

/// The embedded tables. Throws std::runtime_error only if the build embedded malformed data
/// (a build bug; the tables are validated by the tests).
const knowledge& builtin_knowledge();

/// PEP 503 normalisation: lower case, runs of '-', '_' and '.' become one '-'.
std::string normalise_name(std::string_view name);

}  // namespace r2r::planning
