// SPDX-License-Identifier: MIT
// The pipeline a command runs and the command-line inputs every command reads the same way:
// --pipeline FILE, else the copy of configs/pipelines/<name>.json built into the binary (so an
// installed repo2rocm needs no source tree); --paper as a run records it. THREADING: pure
// functions of their arguments.
#pragma once

#include <r2r/core/error.hpp>
#include <r2r/core/pipeline_config.hpp>

#include <filesystem>
#include <string>

namespace r2r::run {

struct chosen_pipeline {
  core::parsed_pipeline parsed;
  std::string label;     // the file as given, or "(built-in) run" / "(built-in) mode2" / "(built-in) port"
  bool builtin = false;  // true: no file on disk, so no directory to resolve the pipeline's paths from
};

/// `file` empty: the built-in run pipeline (mode 2: mode2.json, which extends run.json); else the file.
chosen_pipeline choose_run_pipeline(const std::filesystem::path& file, int mode);
/// `file` empty: the built-in port pipeline; else the file.
chosen_pipeline choose_port_pipeline(const std::filesystem::path& file);

/// What `repo2rocm plan` loads of a run pipeline: its `rank` stage and the instance that ranks a
/// paper's candidates (plan_core.hpp), nothing else.
core::pipeline_config plan_stages_of(core::pipeline_config run_pipeline);

/// --paper as a run or a plan records it: "" stays ""; an http(s) URL stays as given; another
/// scheme (file://, ftp://) is a usage error; anything else is a path, made absolute.
core::result<std::string> paper_argument(const std::string& given);

}  // namespace r2r::run
