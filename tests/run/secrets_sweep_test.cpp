// SPDX-License-Identifier: MIT
// Secrets sweep: a full `repo2rocm run` (local sandbox, the llm policy driven by an Anthropic-API
// loopback server) with known keys planted in the environment and in the repository's files, then a
// grep of every byte of the run directory, the bundle and the process output for each key.
// The rule (docs/run.md, "Secrets"):
//   * keys from the environment appear nowhere: not in any file of the run directory or bundle,
//     not on stdout or stderr;
//   * keys written in the repository's own files are the user's data: they may appear only in the
//     copies of the repository (repo.tar, source/, workspace/, bundle/repo.tar, the executor's
//     execute/workspace/ and its snapshot tars execute/checkpoints/*.tar, execute/state/*.tar),
//     never in logs, trajectories, commands.log, events, reports, plans, prompts or any other file.
// The model's first reply makes the executor print the environment and the planted files inside
// the sandbox, so the observations that reach the trajectory, the llm requests and the bundle carry
// every key unless the run redacts them.
#include "../plan/fixture_repos.hpp"
#include "loopback_server.hpp"
#include "run_fixture.hpp"
#include "test_helpers.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>

namespace {

using nlohmann::json;
using r2r::plugins::llm::testkit::loopback_server;
using r2r::plugins::llm::testkit::random_secret;
using r2r::plugins::llm::testkit::recorded_request;
using r2r::plugins::llm::testkit::scripted_response;
namespace fs = std::filesystem;

std::string upper_alnum(std::size_t n) {
  std::random_device rd;
  std::mt19937_64 gen(rd());
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += alphabet[gen() % (sizeof alphabet - 1)];
  return s;
}

struct planted {
  std::string where;  // "env" or "repo"
  std::string what;
  std::string value;
};

/// Every planted key, fresh for this run so that no hit can be an accident.
std::vector<planted> plant() {
  return {
      {"env", "Anthropic key", random_secret("sk-ant-api03-")},
      {"env", "OpenAI key", random_secret("sk-proj-")},
      {"env", "GitHub token", random_secret("ghp_")},
      {"env", "AWS access key id", "AKIA" + upper_alnum(16)},
      {"env", "AWS secret access key", random_secret("wJalr")},
      {"env", "Bearer header value", random_secret("bearer")},
      {"env", "R2R_GIT_TOKEN", random_secret("r2rgit")},
      {"repo", "Anthropic key", random_secret("sk-ant-api03-")},
      {"repo", "OpenAI key", random_secret("sk-")},
      {"repo", "GitHub token", random_secret("ghp_")},
      {"repo", "AWS access key id", "AKIA" + upper_alnum(16)},
      {"repo", "AWS secret access key", random_secret("aws")},
      {"repo", "Bearer header value", random_secret("tok")},
  };
}

/// An Anthropic Messages reply with one tool call.
scripted_response tool_call(const std::string& name, const json& input) {
  return scripted_response::json(
      200, {{"id", "msg_sweep"},
            {"type", "message"},
            {"role", "assistant"},
            {"model", "claude-sonnet-4-5"},
            {"content", {{{"type", "tool_use"}, {"id", "toolu_sweep"}, {"name", name}, {"input", input}}}},
            {"stop_reason", "tool_use"},
            {"usage", {{"input_tokens", 100}, {"output_tokens", 10}}}});
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// True for the files that are copies of the user's repository: the source tar and trees, the
/// executor's workspace and its snapshots (checkpoints and per-turn workspace tars).
bool repository_copy(const std::string& rel) {
  return rel == "repo.tar" || rel == "bundle/repo.tar" || starts_with(rel, "source/") ||
         starts_with(rel, "workspace/") || starts_with(rel, "execute/workspace/") ||
         (starts_with(rel, "execute/checkpoints/") && ends_with(rel, ".tar")) ||
         (starts_with(rel, "execute/state/") && ends_with(rel, ".tar"));
}

TEST(SecretsSweep, NoPlantedKeyLeavesItsPlaceInAFullRun) {
  r2r::test::temp_dir tmp;
  const auto keys = plant();
  const auto key = [&](const std::string& where, const std::string& what) {
    for (const auto& k : keys)
      if (k.where == where && k.what == what) return k.value;
    throw std::logic_error(what);
  };

  // The repository: the example, plus files that hold keys the way real repositories do.
  const fs::path repo = tmp.path() / "fused-rmsnorm";
  r2r::test::make_example_repo("fused-rmsnorm", repo);
  std::ofstream(repo / ".env") << "ANTHROPIC_API_KEY=" << key("repo", "Anthropic key") << "\n"
                               << "OPENAI_API_KEY=" << key("repo", "OpenAI key") << "\n";
  std::ofstream(repo / "deploy.yaml") << "github:\n  token: " << key("repo", "GitHub token") << "\n";
  std::ofstream(repo / "aws.ini") << "[default]\naws_access_key_id = " << key("repo", "AWS access key id")
                                  << "\naws_secret_access_key = " << key("repo", "AWS secret access key") << "\n";
  std::ofstream(repo / "fetch.sh") << "curl -H 'Authorization: Bearer " << key("repo", "Bearer header value")
                                   << "' https://example.invalid/data\n";
  r2r::test::git_commit_all(repo, "add deployment files");

  // The model: first print the environment and the planted files in the sandbox, then give up.
  loopback_server server;
  int calls = 0;
  server.set_handler([&calls](const recorded_request&) {
    if (calls++ == 0) {
      return tool_call("run", {{"command", "env; cat .env deploy.yaml aws.ini fetch.sh; echo \"$CURL_AUTH\""}});
    }
    return tool_call("give_up", {{"reason", "secrets sweep: nothing more to do"}});
  });
  json pipeline =
      json::parse(r2r::test::read_text(r2r::test::env_path("R2R_SOURCE_DIR") / "configs/pipelines/run.json"));
  pipeline.erase("$schema");
  pipeline["instances"] = {{"llm",
                            {{"use", "r2r.llm.anthropic"},
                             {"config",
                              {{"base_url", server.base_url()},
                               {"model", "claude-sonnet-4-5"},
                               {"api_key_env", "ANTHROPIC_API_KEY"},
                               {"retry", {{"max_retries", 0}}}}}}}};
  for (auto& entry : pipeline["pipeline"])
    if (entry["stage"] == "policy")
      entry = {{"stage", "policy"}, {"name", "model"}, {"use", "r2r.policy.llm"}, {"config", {{"llm_service", "llm"}}}};
  const fs::path pipeline_file = tmp.write("pipeline.json", pipeline.dump(2));

  const std::string env =
      "ANTHROPIC_API_KEY='" + key("env", "Anthropic key") + "' OPENAI_API_KEY='" + key("env", "OpenAI key") +
      "' GITHUB_TOKEN='" + key("env", "GitHub token") + "' AWS_ACCESS_KEY_ID='" + key("env", "AWS access key id") +
      "' AWS_SECRET_ACCESS_KEY='" + key("env", "AWS secret access key") + "' CURL_AUTH='Authorization: Bearer " +
      key("env", "Bearer header value") + "' R2R_GIT_TOKEN='" + key("env", "R2R_GIT_TOKEN") + "' R2R_LOG_LEVEL=trace ";
  const fs::path dir = tmp.path() / "run";
  const auto r = r2r::test::run_process(
      env + r2r::test::run_command(tmp.path(), "'" + repo.string() + "' --json --run-dir '" + dir.string() +
                                                   "' --pipeline '" + pipeline_file.string() + "'"));
  ASSERT_TRUE(fs::exists(dir / "bundle")) << r.out << r.err;
  ASSERT_GE(server.request_count(), 2u) << "the policy asked the model for every turn\n" << r.out << r.err;
  // The honest case: the sandbox did print the keys (else the sweep proves nothing).
  EXPECT_EQ(server.requests()[0].header("x-api-key"), key("env", "Anthropic key"));
  const std::string trajectory = r2r::test::read_text(dir / "execute/trajectory.jsonl");
  EXPECT_THAT(trajectory, ::testing::HasSubstr("[REDACTED]")) << trajectory;

  // Every byte of every file under the run directory (the bundle included), and the output.
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string rel = fs::relative(entry.path(), dir).generic_string();
    const std::string bytes = r2r::test::read_text(entry.path());
    for (const auto& k : keys) {
      if (bytes.find(k.value) == std::string::npos) continue;
      if (k.where == "repo" && repository_copy(rel)) continue;
      ADD_FAILURE() << k.where << " " << k.what << " found in " << rel;
    }
  }
  EXPECT_GE(files, 20u);
  for (const auto& k : keys) {
    EXPECT_EQ(r.out.find(k.value), std::string::npos) << k.where << " " << k.what << " on stdout";
    EXPECT_EQ(r.err.find(k.value), std::string::npos) << k.where << " " << k.what << " on stderr";
  }
  // The requests sent to the model carry no key either (the observations were redacted first).
  for (const auto& q : server.requests()) {
    for (const auto& k : keys) EXPECT_EQ(q.body.find(k.value), std::string::npos) << k.where << " " << k.what;
  }
}

}  // namespace
