// SPDX-License-Identifier: MIT
#include "executor_fixture.hpp"

#include <r2r/core/pipeline_config.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace r2r::test {

nlohmann::json guard_stage(const std::string& name, const std::string& use, nlohmann::json config) {
  return {{"stage", "guard"}, {"name", name}, {"use", use}, {"config", std::move(config)}};
}

nlohmann::json pipeline(const nlohmann::json& script, const std::vector<nlohmann::json>& guards,
                        const nlohmann::json& usage, const nlohmann::json& sandbox_config) {
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& g : guards) stages.push_back(g);
  nlohmann::json policy_config{{"script", script}};
  if (!usage.empty()) policy_config["usage"] = usage;
  stages.push_back(
      {{"stage", "policy"}, {"name", "policy"}, {"use", "test.policy.scripted"}, {"config", policy_config}});
  stages.push_back({{"stage", "sandbox"},
                    {"name", "sandbox"},
                    {"use", "r2r.sandbox.local"},
                    {"config", sandbox_config.is_null() ? nlohmann::json{{"default_timeout_s", 60}} : sandbox_config}});
  return {{"version", 1},
          {"name", "executor-test"},
          {"plugins",
           {{"search_paths",
             {fixture_dir("scripted_policy").string(), fixture_dir("garbage_guard").string(),
              fixture_dir("throws_everywhere").string(), plugin_dir().string()}}}},
          {"pipeline", stages}};
}

live_pipeline open_pipeline(const std::filesystem::path& file) {
  live_pipeline out;
  auto parsed = core::parse_pipeline_file(file);
  if (!parsed.config) {
    std::string problems;
    for (const auto& p : parsed.problems) problems += p.to_string() + "\n";
    ADD_FAILURE() << "pipeline does not parse:\n" << problems;
    return out;
  }
  std::vector<core::search_location> path;
  for (const auto& p : parsed.config->search_paths) path.push_back({std::filesystem::path(p), "pipeline"});
  auto registry = core::plugin_registry::load(path);
  if (!registry) {
    ADD_FAILURE() << registry.error().to_string();
    return out;
  }
  out.registry = std::make_unique<core::plugin_registry>(std::move(*registry));
  auto problems = core::check_pipeline_plugins(*parsed.config, *out.registry);
  for (const auto& p : problems) ADD_FAILURE() << p.to_string();
  auto session = core::pipeline_session::create(*parsed.config, *out.registry);
  if (!session) {
    ADD_FAILURE() << session.error().to_string();
    return out;
  }
  out.session = std::move(*session);
  return out;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> read_lines(const std::filesystem::path& file) {
  std::vector<std::string> out;
  std::istringstream in(read_text(file));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<nlohmann::json> trajectory(const std::filesystem::path& run_dir) {
  std::vector<nlohmann::json> out;
  for (const auto& line : read_lines(run_dir / "trajectory.jsonl")) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace r2r::test
