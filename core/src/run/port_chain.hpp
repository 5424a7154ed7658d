// SPDX-License-Identifier: MIT
// The convert stage of `repo2rocm port` and of `repo2rocm run`: runs a pipeline session's converter chain (hipify ->
// hazard scan -> build check, or whatever the pipeline lists) through the stage runner over a
// working tree, and merges the converters' responses into one report (convert.json) and one
// unified diff (patch.diff).
//
// Each converter gets the same request shape (plugin_api/schemas/converter/convert.request):
// files by path, root = out_root = the working tree (conversion happens in place), base_root =
// the untouched source, so every converter's diff is cumulative against the source and the last
// diff of a file is its whole change. A converter that reports R2R_ERR_UNAVAILABLE (a tool that
// is not installed) is recorded as unavailable and the chain goes on; any other failure stops it.
// THREADING: one call at a time (the session's instances serialise calls anyway).
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/core/pipeline_session.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace r2r::run {

struct port_inputs {
  std::filesystem::path source;    // absolute; never written
  std::filesystem::path tree;      // absolute; the converted copy, changed in place
  std::vector<std::string> files;  // relative paths under tree, sorted
  std::vector<std::string> arch;   // gfx targets (may be empty: the plugins' defaults apply)
  std::string rocm;                // target ROCm release (may be empty)
  std::size_t batch_size = 256;    // files per converter call
};

struct port_outcome {
  nlohmann::json report;  // convert.json without the caller's fields (source, out, timing)
  std::string patch;      // patch.diff: the files' final diffs, in path order
};

/// Runs the `convert` stages of `session` in file order (a config error when it has none); other
/// stages of the session are not touched.
core::result<port_outcome> run_port_chain(core::pipeline_session& session, const port_inputs& inputs);

}  // namespace r2r::run
