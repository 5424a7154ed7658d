// SPDX-License-Identifier: MIT
// Shared by the `repo2rocm run` tests: the example repository as a real git repository in a
// temporary directory, the command line to run, and JSON event parsing.
#pragma once

#include "../unit/test_support.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace r2r::test {

/// Copies examples/<name> into `dest` and commits it; returns the commit SHA.
std::string make_example_repo(const std::string& name, const std::filesystem::path& dest);

/// `repo2rocm --plugin-path <build plugins> run ARGS` with no container engine reachable unless
/// `docker_socket` is given (then DOCKER_HOST points at it), caches under `tmp`.
std::string run_command(const std::filesystem::path& tmp, const std::string& args,
                        const std::string& docker_socket = {});

/// Every line of `text` parsed as JSON; a line that is not JSON fails the calling test.
std::vector<nlohmann::json> parse_events(const std::string& text);

/// Reads a whole file.
std::string read_text(const std::filesystem::path& path);

}  // namespace r2r::test
