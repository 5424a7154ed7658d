// SPDX-License-Identifier: MIT
// The work of `repo2rocm port` as functions, shared by `port` and the port stage of `run`: open a
// session of convert stages, copy the source to a working tree, run the chain (port_chain.hpp)
// and write the patch and the report.
// OWNERSHIP: port_session owns the registry and the session built from it (the session refers to
// the registry, so both live and die together). THREADING: one thread.
#pragma once

#include "port_chain.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/search_path.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace r2r::run {

struct port_session {
  std::unique_ptr<core::plugin_registry> registry;
  std::unique_ptr<core::pipeline_session> session;
};

/// Loads the plugin registry from `search_path` (the command line's and the pipeline's) and creates
/// the session of `config`. Errors of phase config are the operator's to fix (exit 2).
core::result<port_session> open_port_session(const std::vector<core::search_location>& search_path,
                                             const core::pipeline_config& config);

struct port_job {
  std::filesystem::path source;       // absolute; never written
  std::filesystem::path tree;         // absolute; the converted copy (created; files overwritten)
  std::filesystem::path patch_file;   // written: the unified diff against source
  std::filesystem::path report_file;  // written: convert.json
  std::filesystem::path out_dir;      // recorded as convert.json's "out" (empty: tree's parent)
  std::vector<std::string> arch;      // gfx targets for the build check (empty: plugin defaults)
  std::string rocm;                   // target ROCm release (may be empty)
  std::string pipeline_file;          // recorded in the report
};

/// Copies `job.source` to `job.tree` (tree_copy.hpp: links kept as links, specials, `.git`
/// entries and oversized files left out and listed in the report's "tree"), runs every convert
/// stage of `session` over the copy and writes the patch and the report, each atomically.
/// Returns the report (convert.json's content).
core::result<nlohmann::json> port_tree(core::pipeline_session& session, const port_job& job);

/// `repo2rocm port`: port_tree into OUT = job.out_dir (absent, empty, or an earlier port's output;
/// a usage error otherwise) through a staged sibling directory renamed over OUT when complete, so
/// OUT/tree, OUT/patch.diff and OUT/convert.json appear together or not at all. job.tree,
/// patch_file and report_file are set here.
core::result<nlohmann::json> port_to_out(core::pipeline_session& session, port_job job);

}  // namespace r2r::run
