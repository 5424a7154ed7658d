// SPDX-License-Identifier: MIT
#include "run_fixture.hpp"

#include "../plan/fixture_repos.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace r2r::test {

std::string make_example_repo(const std::string& name, const std::filesystem::path& dest) {
  const auto source = env_path("R2R_SOURCE_DIR") / "examples" / name;
  std::filesystem::create_directories(dest);
  std::filesystem::copy(source, dest, std::filesystem::copy_options::recursive);
  return git_commit_all(dest, "example " + name);
}

std::string run_command(const std::filesystem::path& tmp, const std::string& args, const std::string& docker_socket) {
  const std::string docker = docker_socket.empty() ? (tmp / "no-engine.sock").string() : docker_socket;
  return "DOCKER_HOST='unix://" + docker + "' CONTAINER_HOST='unix://" + (tmp / "no-podman.sock").string() + "' " +
         (env_path("R2R_BIN_DIR") / "repo2rocm").string() + " --plugin-path " + plugin_dir().string() + " run " + args +
         " --cache-dir '" + (tmp / "cache").string() + "' --state-dir '" + (tmp / "state").string() + "'";
}

std::vector<nlohmann::json> parse_events(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not a JSON event line: " << line;
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace r2r::test
