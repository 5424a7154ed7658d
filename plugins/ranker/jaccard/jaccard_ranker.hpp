// SPDX-License-Identifier: MIT
// r2r.ranker.jaccard: ranks ROCm base images for a repository.
//   score = Jaccard(desired packages, image inventory) + bonuses (workload, Python, arch, cached)
// Hard filters run on every tag BEFORE a tag is chosen: the tag must list the host gfx target and
// carry at least the minimum ROCm for it (catalog `arches`), its Python must satisfy the
// repository's specifier, and it must not have failed `fail_threshold` times on this host arch.
// Among an image's surviving tags the highest-scoring is chosen; ties: newer ROCm, newer Python,
// then tag name. Candidates are ordered by score, then image name, then tag (deterministic).
// THREADING: the host serialises calls; the object is immutable after construction.
#pragma once

#include <r2r/sdk/host.hpp>
#include <r2r/sdk/kinds/ranker.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace r2r::plugins::ranker {

class jaccard_ranker {
 public:
  struct config {
    double workload_bonus = 0.25;  // image workload == the repository's preferred workload
    double python_bonus = 0.08;    // tag Python == the exact version the repository pins
    double arch_bonus = 0.12;      // tag is a build for the host arch (gfx or alias token in the tag name)
    double cached_bonus = 0.15;    // image:tag is in the local image store (no pull needed)
    std::int64_t fail_threshold = 2;
    std::int64_t max_candidates = 10;
  };

  jaccard_ranker(const config& cfg, const sdk::host& host);

  /// Throws sdk::invalid_argument for an unusable request (e.g. an empty catalog).
  sdk::ranker::rank_response rank(const sdk::ranker::rank_request& request);

  static sdk::method_table<jaccard_ranker> methods() { return sdk::ranker::methods<jaccard_ranker>(); }

 private:
  config cfg_;
  sdk::host host_;
};

void from_json(const nlohmann::json& j, jaccard_ranker::config& c);

/// PEP 503 normalisation: lower case, runs of '-', '_' and '.' become one '-'.
std::string normalise_package(std::string_view name);

}  // namespace r2r::plugins::ranker
