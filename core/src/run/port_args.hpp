// SPDX-License-Identifier: MIT
// The operator's inputs to `repo2rocm port`, checked and turned into a port_job (port_job.hpp):
// SOURCE a local directory, --arch a comma-separated list of gfx targets, --rocm a release
// number, --out a directory that neither contains SOURCE nor lies inside it.
// THREADING: pure apart from reading the file system.
#pragma once

#include "port_job.hpp"

#include <r2r/core/error.hpp>

#include <string>
#include <vector>

namespace r2r::run {

struct port_args {
  std::string source;   // as given: a local directory (git URLs are refused)
  std::string arch;     // "gfx90a,gfx942" or "" (plugin defaults)
  std::string rocm;     // "6.2", "6.2.1" or ""
  std::string out_dir;  // "" for ./<source name>-rocm
};

/// "gfx90a,gfx942,gfx90a" -> {gfx90a, gfx942}; "" -> {}. Phase usage naming the bad entry otherwise.
core::result<std::vector<std::string>> parse_gfx_list(const std::string& text);

/// The job for `args`: source and out_dir absolute and normalised, arch parsed, rocm checked.
/// Every problem is an error of phase usage that says what to pass instead.
core::result<port_job> port_job_from(const port_args& args);

}  // namespace r2r::run
