// SPDX-License-Identifier: MIT
// The work of `repo2rocm plan` as functions, shared by `plan` and the plan stage of `run`:
// fingerprint a checked-out tree, rank base images through a ranker plugin, build plan.json, and
// write the plan's files.
// THREADING: one thread; the ranker instance is borrowed from the caller's pipeline session.
#pragma once

#include "paper_source.hpp"

#include <r2r/core/error.hpp>
#include <r2r/core/plugin_instance.hpp>
#include <r2r/planning/fingerprint.hpp>
#include <r2r/planning/intake.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace r2r::run {

/// A gfx target or an alias (mi300x) to its gfx name without feature suffix; "" stays "".
/// Anything else is a usage error naming what was found.
core::result<std::string> normalise_arch(const std::string& given);

/// --cache-dir default: $R2R_CACHE_DIR, $XDG_CACHE_HOME/repo2rocm/repos, ~/.cache/repo2rocm/repos.
std::filesystem::path default_cache_dir();
/// --state-dir default: $R2R_STATE_DIR, $XDG_STATE_HOME/repo2rocm, ~/.local/state/repo2rocm.
std::filesystem::path default_state_dir();

/// The pipeline instance that ranks a paper's tied candidates (docs/mode2-paper.md), when declared.
inline constexpr const char* paper_rank_instance = "paper-rank";

/// Calls `rank` on `ranker` (the pipeline's rank stage).
core::result<nlohmann::json> rank_images(core::plugin_instance& ranker, const nlohmann::json& request);

struct plan_request {
  std::filesystem::path tree;  // the checked-out repository (read only)
  std::string source;          // as the user gave it
  std::string url;             // without credentials
  std::string commit;          // 40-hex SHA
  std::string arch;            // normalised (normalise_arch); may be empty
  std::string base_image;      // override; empty: the ranker's choice
  std::filesystem::path state_dir;
  core::plugin_instance* ranker = nullptr;  // the pipeline's rank stage (borrowed); null: a config error
  std::string paper;  // --paper FILE or URL; empty: none (the Mode 2 target comes from the README)
  core::plugin_instance* paper_model = nullptr;  // the pipeline's `paper-rank` llm instance (borrowed); null: none
  std::filesystem::path earlier;             // may hold an earlier download of a paper URL (RUN_DIR; paper_source.hpp)
  std::vector<planning::intake_note> notes;  // intake_result::notes
  std::string content_hash;                  // intake_result::content_hash
};

struct plan_outputs {
  planning::fingerprint fp;
  nlohmann::json fingerprint_json;
  nlohmann::json plan;              // valid against plan.schema.json
  std::optional<kept_paper> paper;  // a downloaded paper, written beside the plan as paper/NAME
};

/// Fingerprint, rank, plan; both documents are checked against their schemas. A paper that cannot
/// be read (encrypted, image-only, truncated, not a paper) is an io error naming the problem.
core::result<plan_outputs> make_plan(const plan_request& request);

/// Writes fingerprint.json, plan.json, Dockerfile, repo.tar (`tree` without .git) and a downloaded
/// paper (paper/) into `out`.
core::result<void> write_plan_files(const std::filesystem::path& out, const plan_outputs& outputs,
                                    const std::filesystem::path& tree);

/// `repo2rocm plan`: write_plan_files into OUT (absent, empty or an earlier plan's output; a usage
/// error otherwise) through a staged sibling renamed over OUT when complete.
core::result<void> publish_plan(const std::filesystem::path& out, const plan_outputs& outputs,
                                const std::filesystem::path& tree);

}  // namespace r2r::run
