// SPDX-License-Identifier: MIT
// Generates the Dockerfile of an image build request. Pure function; the text is returned to the
// caller too, so a run's bundle can carry the exact Dockerfile that was built.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace r2r::plugins::sandbox::docker {

struct build_request {
  std::string from;                          // base image (must exist locally: nothing is pulled)
  std::map<std::string, std::string> env;    // ENV lines
  std::map<std::string, std::string> files;  // relative name -> content, copied under files_dest
  std::string files_dest = "/opt/r2r";
  std::vector<std::string> run;  // RUN lines, in order, each run by /bin/sh -c
  std::string workdir;
  std::string tag;  // empty: the plugin names it
  // The context form (instead of from/env/files/run/workdir): a host directory with a Dockerfile
  // at its root, built as it is (the run's verify stage builds the bundle's Dockerfile this way).
  std::string context_dir;
  std::map<std::string, std::string> build_args;  // --build-arg values; the configured package index is added
  bool network = false;  // the build reaches the configured network (its installs), unless the policy is "none"
  bool nocache = false;  // no layer of any earlier build or commit is reused
};
void from_json(const nlohmann::json& j, build_request& r);

/// Throws sdk::invalid_argument for an empty base, a file name that is absolute or has `..`, or a
/// value with a newline where the Dockerfile syntax cannot carry one.
std::string generate_dockerfile(const build_request& request, const std::map<std::string, std::string>& labels);

}  // namespace r2r::plugins::sandbox::docker
