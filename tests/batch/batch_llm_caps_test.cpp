// SPDX-License-Identifier: MIT
// Spend caps on real runs: `repo2rocm batch` starts real `repo2rocm run`s (local sandbox, the
// example repository, the llm policy on r2r.llm.anthropic with prices) whose model calls go to an
// Anthropic-API loopback server replaying scripted replies with known usage. The cap is reached by
// the runs' own token accounting (bundle/report.json costs), not by a stand-in runner: the batch's
// spend must equal what the server was asked for, priced, and the runs after the cap never start.
#include "../plan/fixture_repos.hpp"
#include "../run/run_fixture.hpp"
#include "batch_fixture.hpp"
#include "loopback_server.hpp"
#include "test_helpers.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>

namespace {

using nlohmann::json;
using r2r::plugins::llm::testkit::loopback_server;
using r2r::plugins::llm::testkit::recorded_request;
using r2r::plugins::llm::testkit::scripted_response;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr int input_tokens = 50000;  // per model reply
constexpr int output_tokens = 5000;
constexpr double input_per_mtok = 3.0;
constexpr double output_per_mtok = 15.0;
// 0.15 + 0.075 USD per reply: a run (a command, then give_up) costs 0.45, two cost 0.90.
constexpr double usd_per_reply = input_tokens / 1e6 * input_per_mtok + output_tokens / 1e6 * output_per_mtok;

/// An Anthropic Messages reply with one tool call and the usage above.
scripted_response tool_call(const std::string& name, const json& input) {
  return scripted_response::json(
      200, {{"id", "msg_cap"},
            {"type", "message"},
            {"role", "assistant"},
            {"model", "claude-sonnet-4-5"},
            {"content", {{{"type", "tool_use"}, {"id", "toolu_cap"}, {"name", name}, {"input", input}}}},
            {"stop_reason", "tool_use"},
            {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}});
}

TEST(BatchLlmCaps, MaxUsdOnReplayedLlmRunsStopsAfterTheCapByRealAccounting) {
  r2r::test::temp_dir tmp;
  const fs::path repo = tmp.path() / "fused-rmsnorm";
  r2r::test::make_example_repo("fused-rmsnorm", repo);
  // Four entries of the one repository (keys fused-rmsnorm-<sha>, -2, -3, -4), one GPU: in order.
  tmp.write("m.csv",
            "repo\n" + repo.string() + "\n" + repo.string() + "\n" + repo.string() + "\n" + repo.string() + "\n");

  // The model: each run's first request runs a command, its second gives up. The replies are the
  // same for every run; the server counts what it was asked.
  loopback_server server;
  std::mutex m;
  server.set_handler([&](const recorded_request& q) {
    std::lock_guard<std::mutex> lock(m);
    const json body = json::parse(q.body, nullptr, false);
    const bool has_result = body.is_object() && body.contains("messages") && body["messages"].size() > 1;
    if (!has_result) return tool_call("run", {{"command", "echo cap-test"}});
    return tool_call("give_up", {{"reason", "batch cap test: nothing more to do"}});
  });
  json pipeline =
      json::parse(r2r::test::read_text(r2r::test::env_path("R2R_SOURCE_DIR") / "configs/pipelines/run.json"));
  pipeline.erase("$schema");
  pipeline["instances"] = {
      {"llm",
       {{"use", "r2r.llm.anthropic"},
        {"config",
         {{"base_url", server.base_url()},
          {"model", "claude-sonnet-4-5"},
          {"api_key_env", "ANTHROPIC_API_KEY"},
          {"retry", {{"max_retries", 0}}},
          {"prices", {{"input_per_mtok", input_per_mtok}, {"output_per_mtok", output_per_mtok}}}}}}}};
  // The model's policy replaces the pipeline's (run.json may name the playbook) or is added.
  const json policy{
      {"stage", "policy"}, {"name", "model"}, {"use", "r2r.policy.llm"}, {"config", {{"llm_service", "llm"}}}};
  bool replaced = false;
  for (auto& entry : pipeline["pipeline"]) {
    if (entry["stage"] == "policy") {
      entry = policy;
      replaced = true;
    }
  }
  if (!replaced) pipeline["pipeline"].push_back(policy);
  const fs::path pipeline_file = tmp.write("pipeline.json", pipeline.dump(2));

  // The first run (0.45) stays under the cap of 0.80, the second crosses it: the last two entries
  // are never started.
  const fs::path out = tmp.path() / "b";
  const std::string env = "ANTHROPIC_API_KEY='" + r2r::plugins::llm::testkit::random_secret("sk-ant-api03-") +
                          "' DOCKER_HOST='unix://" + (tmp.path() / "no-engine.sock").string() +
                          "' CONTAINER_HOST='unix://" + (tmp.path() / "no-podman.sock").string() + "' R2R_CACHE_DIR='" +
                          (tmp.path() / "cache").string() + "' R2R_STATE_DIR='" + (tmp.path() / "state").string() +
                          "' R2R_SYSROOT='" + (tmp.path() / "nosys").string() + "' ";
  const auto r = r2r::test::run_process(
      env + r2r::test::batch::batch_command("'" + (tmp.path() / "m.csv").string() + "' --gpus 0 --max-usd 0.8 --out '" +
                                            out.string() + "' --pipeline '" + pipeline_file.string() + "'"));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stopped: spend cap: max_usd 0.80 reached"));

  const auto summary = r2r::test::batch::read_json_file(out / "summary.json");
  ASSERT_TRUE(summary.is_object()) << r.out << r.err;
  int ran = 0, held = 0;
  double usd = 0;
  long long tokens = 0;
  for (const auto& row : summary["rows"]) {
    const fs::path run_dir = out / "runs" / row["key"].get<std::string>();
    if (row["result"] == "not_started") {
      ++held;
      EXPECT_EQ(row["detail"], "not started: spend cap");
      EXPECT_FALSE(fs::exists(run_dir / "events.jsonl")) << run_dir << " ran after the cap";
      continue;
    }
    ++ran;
    // A real run to its verdict, whose cost is its own report's accounting.
    EXPECT_TRUE(fs::exists(run_dir / "bundle" / "report.json")) << run_dir;
    const auto report = r2r::test::batch::read_json_file(run_dir / "bundle" / "report.json");
    ASSERT_TRUE(report.contains("costs")) << report.dump();
    EXPECT_NEAR(row["usd"].get<double>(), report["costs"]["usd"].get<double>(), 1e-9) << row.dump();
    EXPECT_GT(row["usd"].get<double>(), 0) << row.dump();
    usd += row["usd"].get<double>();
    tokens += row["tokens"].get<long long>();
  }
  EXPECT_EQ(ran, 2) << summary.dump(2);
  EXPECT_EQ(held, 2) << summary.dump(2);
  // What the batch counted is what the model server was asked for, at the configured prices.
  const auto requests = static_cast<double>(server.request_count());
  EXPECT_GE(requests, 2);
  EXPECT_NEAR(usd, requests * usd_per_reply, 1e-6);
  EXPECT_EQ(tokens, static_cast<long long>(requests) * (input_tokens + output_tokens));
  EXPECT_NEAR(summary["totals"]["usd"].get<double>(), usd, 1e-6);
  const auto state = r2r::test::batch::read_json_file(out / "batch.json");
  EXPECT_NEAR(state["spent"]["usd"].get<double>(), usd, 1e-6);
  EXPECT_GE(state["spent"]["usd"].get<double>(), 0.8);
  // The honest counterpart: under a cap no run reaches, every entry runs.
  const fs::path all = tmp.path() / "all";
  const auto r2 = r2r::test::run_process(
      env + r2r::test::batch::batch_command("'" + (tmp.path() / "m.csv").string() + "' --gpus 0 --max-usd 100 --out '" +
                                            all.string() + "' --pipeline '" + pipeline_file.string() + "'"));
  EXPECT_EQ(r2.exit_code, 0) << r2.out << r2.err;
  const auto all_summary = r2r::test::batch::read_json_file(all / "summary.json");
  int all_ran = 0;
  for (const auto& row : all_summary["rows"]) all_ran += row["result"] != "not_started" ? 1 : 0;
  EXPECT_EQ(all_ran, 4) << all_summary.dump(2) << r2.out << r2.err;
}

}  // namespace
