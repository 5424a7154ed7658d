// SPDX-License-Identifier: MIT
// The run engine (r2r/run/engine.hpp) as `repo2rocm run` drives it on examples/fused-rmsnorm with
// the local sandbox: one registry and one sandbox instance per run (counted in the loader's log),
// the plugins a run uses are the ones its pipeline file names (a one-line change swaps the verifier
// or the sandbox), a pipeline without a required stage stops before any work, and the default
// pipeline's guards include critical_source_edit, which catches a stubbed kernel.
#include "loopback_server.hpp"
#include "run_fixture.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace {

using nlohmann::json;
using r2r::test::read_text;
using r2r::test::run_process;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::size_t count_lines(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

class RunEngine : public ::testing::Test {
 protected:
  r2r::test::temp_dir tmp;
  fs::path repo;

  void SetUp() override {
    repo = tmp.path() / "fused-rmsnorm";
    r2r::test::make_example_repo("fused-rmsnorm", repo);
  }
  /// configs/pipelines/run.json with its Docker sandbox entry left out (only bubblewrap here).
  fs::path local_pipeline() {
    json p = json::parse(read_text(r2r::test::env_path("R2R_SOURCE_DIR") / "configs/pipelines/run.json"));
    p.erase("$schema");
    json kept = json::array();
    for (const auto& e : p["pipeline"])
      if (e["name"] != "docker") kept.push_back(e);
    p["pipeline"] = kept;
    return tmp.write("pipelines/local.json", p.dump(2));
  }
  r2r::test::process_result run(const fs::path& pipeline, const fs::path& dir, const std::string& extra = {}) {
    return run_process(r2r::test::run_command(tmp.path(), "'" + repo.string() +
                                                              "' --json --log-level info --run-dir '" + dir.string() +
                                                              "' --pipeline '" + pipeline.string() + "'" + extra));
  }
  static json verifiers_used(const fs::path& dir) {
    json ids = json::array();
    const json verify = json::parse(read_text(dir / "verify.json"));  // kept alive for the loop
    for (const auto& v : verify["verifiers"]) ids.push_back(v["plugin_id"]);
    return ids;
  }
};

TEST_F(RunEngine, OneRegistryOneSessionAndOneInstancePerPipelineEntry) {
  const fs::path pipeline = local_pipeline();
  const fs::path dir = tmp.path() / "run";
  const auto r = run(pipeline, dir);
  ASSERT_EQ(r.exit_code, 4) << r.out << r.err;  // no AMD GPU here: the verifier says no_device
  EXPECT_EQ(count_lines(r.err, "plugin registry loaded"), 1u) << r.err;
  EXPECT_EQ(count_lines(r.err, "of r2r.sandbox.local created"), 1u) << r.err;
  for (const char* entry :
       {"'images' of r2r.ranker.jaccard", "'hipify' of r2r.converter.hipify", "'policy' of r2r.policy.playbook",
        "'cpu-fallback' of r2r.guard.cpu-fallback", "'critical-source-edit' of r2r.guard.critical-source-edit",
        "'scale-down' of r2r.guard.scale-down", "'image-switch' of r2r.guard.image-switch",
        "'mode1' of r2r.verifier.mode1-rocm"})
    EXPECT_EQ(count_lines(r.err, std::string("plugin instance ") + entry + " created"), 1u) << entry << "\n" << r.err;
  // The executor and the verifier ran in that one instance; the run recorded its resolved pipeline.
  EXPECT_EQ(verifiers_used(dir), json::array({"r2r.verifier.mode1-rocm"}));
  EXPECT_TRUE(fs::is_regular_file(dir / "pipeline.json"));
  EXPECT_FALSE(fs::exists(dir / "execute.pipeline.json"));
}

TEST_F(RunEngine, SwappingTheVerifierIsOneLineAndTheRunUsesIt) {
  const fs::path base = local_pipeline();
  // The one line: the `mode1` entry on another verifier plugin.
  const fs::path swapped = tmp.write(
      "pipelines/cuda-verifier.json",
      R"({"extends": "local.json", "pipeline": [{"stage": "verify", "name": "mode1", "use": "r2r.verifier.mode1-cuda", "config": {"sandbox_service": "sandbox"}}]})");
  const auto validated = run_process((r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string() + " --plugin-path " +
                                     r2r::test::plugin_dir().string() + " validate --json '" + swapped.string() + "'");
  ASSERT_EQ(validated.exit_code, 0) << validated.out << validated.err;
  EXPECT_THAT(validated.out, HasSubstr("r2r.verifier.mode1-cuda"));
  EXPECT_THAT(validated.out, HasSubstr("\"runnable\": true"));

  const fs::path a = tmp.path() / "a";
  const fs::path b = tmp.path() / "b";
  const auto ra = run(base, a);
  ASSERT_TRUE(fs::exists(a / "verify.json")) << ra.out << ra.err;
  const auto rb = run(swapped, b);
  ASSERT_TRUE(fs::exists(b / "verify.json")) << rb.out << rb.err;
  EXPECT_EQ(verifiers_used(a), json::array({"r2r.verifier.mode1-rocm"}));
  EXPECT_EQ(verifiers_used(b), json::array({"r2r.verifier.mode1-cuda"}));
  EXPECT_THAT(read_text(b / "pipeline.json"), HasSubstr("r2r.verifier.mode1-cuda"));
}

TEST_F(RunEngine, SwappingTheSandboxIsOneLineAndTheRunUsesIt) {
  local_pipeline();
  // The one line: the sandbox entry on the Docker plugin, at a socket where no engine answers.
  const fs::path swapped = tmp.write(
      "pipelines/docker.json",
      R"({"extends": "local.json", "pipeline": [{"stage": "sandbox", "name": "local", "use": "r2r.sandbox.docker", "config": {"socket": ")" +
          (tmp.path() / "nothing.sock").string() + R"("}}]})");
  const fs::path dir = tmp.path() / "run";
  const auto r = run(swapped, dir, " --until environment");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto events = r2r::test::parse_events(r.out);
  ASSERT_FALSE(events.empty());
  json environment;
  for (const auto& e : events)
    if (e.value("event", "") == "stage_finished" && e.value("stage", "") == "environment") environment = e;
  ASSERT_TRUE(environment.is_object()) << r.out;
  EXPECT_EQ(environment["status"], "failed");
  EXPECT_THAT(environment["message"].get<std::string>(), HasSubstr("local (r2r.sandbox.docker)"));
  EXPECT_EQ(count_lines(r.err, "of r2r.sandbox.local created"), 0u) << r.err;

  // The honest case: the file with the local sandbox gets through the environment stage.
  const auto honest = run(tmp.path() / "pipelines/local.json", tmp.path() / "honest", " --until environment");
  EXPECT_EQ(honest.exit_code, 0) << honest.out << honest.err;
  EXPECT_THAT(honest.out, HasSubstr("\"sandbox\":\"r2r.sandbox.local\""));
  EXPECT_THAT(honest.out, HasSubstr("\"outcome\":\"stopped\""));
}

TEST_F(RunEngine, APipelineWithoutARequiredStageFailsBeforeAnyWork) {
  json p = json::parse(read_text(local_pipeline()));
  json kept = json::array();
  for (const auto& e : p["pipeline"])
    if (e["stage"] != "verify") kept.push_back(e);
  p["pipeline"] = kept;
  const fs::path pipeline = tmp.write("pipelines/no-verify.json", p.dump(2));
  const fs::path dir = tmp.path() / "run";
  const auto r = run(pipeline, dir);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  // --json: the error is the JSON document on stdout.
  EXPECT_THAT(r.out, HasSubstr("/pipeline"));
  EXPECT_THAT(r.out, HasSubstr("`verify` stage"));
  EXPECT_FALSE(fs::exists(dir)) << "nothing is done before the pipeline validates";
  EXPECT_EQ(count_lines(r.err, "plugin instance"), 0u) << r.err;
}

/// The default pipeline's guards, as the executor calls them: a patch that deletes the example's
/// kernel is a D3 `kernel_replaced` on the ledger in Mode 1 and denied in Mode 2.
TEST_F(RunEngine, TheDefaultPipelineHasSixGuardsAndAStubbedKernelHitsCriticalSourceEdit) {
  auto parsed = r2r::core::parse_pipeline_file(r2r::test::env_path("R2R_SOURCE_DIR") / "configs/pipelines/run.json");
  ASSERT_TRUE(parsed.config.has_value());
  auto registry = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
  ASSERT_TRUE(registry.has_value());
  r2r::core::pipeline_config guards_only = *parsed.config;
  std::erase_if(guards_only.stages, [](const auto& s) { return s.stage != "guard"; });
  ASSERT_EQ(guards_only.stages.size(), 6u);
  auto session = r2r::core::pipeline_session::create(guards_only, *registry);
  ASSERT_TRUE(session.has_value()) << session.error().to_string();
  const std::string kernel = read_text(repo / "csrc/rmsnorm_kernel.cu");
  std::string removed;
  std::istringstream in(kernel);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) removed += "-" + line + "\n";
  const std::string patch = "--- a/csrc/rmsnorm_kernel.cu\n+++ b/csrc/rmsnorm_kernel.cu\n@@ -1," +
                            std::to_string(lines) + " +1,1 @@\n" + removed +
                            "+// stub: the kernel is not needed on ROCm\n";
  const json plan = json::parse(R"({"repository": {}, "kernels": [{"path": "csrc/rmsnorm_kernel.cu"}]})");
  auto decide = [&](int mode) {
    json ledger = json::array();
    for (const auto& m : (*session)->stages()) {
      auto d =
          m.instance->call("check_action", {{"action", {{"type", "apply_patch"}, {"patch", patch}, {"reason", "stub"}}},
                                            {"context", {{"mode", mode}, {"plan", plan}}}});
      EXPECT_TRUE(d.has_value()) << m.stage->name;
      if (!d) return json{{"decision", "error"}};
      if ((*d)["decision"] != "allow") return json{{"decision", (*d)["decision"]}, {"guard", m.stage->name}};
      for (const auto& e : d->value("ledger", json::array())) ledger.push_back(e);
    }
    return json{{"decision", "allow"}, {"ledger", ledger}};
  };
  const json mode2 = decide(2);
  EXPECT_EQ(mode2["decision"], "deny") << mode2.dump();
  EXPECT_EQ(mode2.value("guard", ""), "critical-source-edit") << mode2.dump();
  const json mode1 = decide(1);
  ASSERT_EQ(mode1["decision"], "allow") << mode1.dump();
  EXPECT_THAT(mode1["ledger"].dump(), HasSubstr("D3")) << mode1.dump();
}

}  // namespace

/// The plugins a run's `run_started` event says it created: "stage/name" -> plugin id.
std::map<std::string, std::string> plugins_started(const std::string& events_out) {
  std::map<std::string, std::string> out;
  for (const auto& e : r2r::test::parse_events(events_out)) {
    if (e.value("event", "") != "run_started") continue;
    for (const auto& p : e.value("plugins", json::array()))
      out[p.value("stage", "") + "/" + p.value("name", "")] = p.value("plugin_id", "");
  }
  return out;
}

TEST_F(RunEngine, SwappingThePolicyIsOneEntryAndTheRunAsksThatPolicy) {
  const fs::path base = local_pipeline();
  r2r::plugins::llm::testkit::loopback_server server;
  server.set_handler([](const r2r::plugins::llm::testkit::recorded_request&) {
    return r2r::plugins::llm::testkit::scripted_response::json(
        200, {{"id", "msg_swap"},
              {"type", "message"},
              {"role", "assistant"},
              {"model", "claude-sonnet-4-5"},
              {"content",
               {{{"type", "tool_use"},
                 {"id", "toolu_swap"},
                 {"name", "give_up"},
                 {"input", {{"reason", "policy swap test: nothing to do"}}}}}},
              {"stop_reason", "tool_use"},
              {"usage", {{"input_tokens", 50}, {"output_tokens", 5}}}});
  });
  // The one entry: `policy` on r2r.policy.llm (which needs its model backend, the `llm` instance).
  const json swapped_doc = {
      {"extends", "local.json"},
      {"instances",
       {{"llm",
         {{"use", "r2r.llm.anthropic"},
          {"config",
           {{"base_url", server.base_url()},
            {"model", "claude-sonnet-4-5"},
            {"api_key_env", "R2R_TEST_KEY"},
            {"retry", {{"max_retries", 0}}}}}}}}},
      {"pipeline",
       {{{"stage", "policy"}, {"name", "policy"}, {"use", "r2r.policy.llm"}, {"config", {{"llm_service", "llm"}}}}}}};
  const fs::path swapped = tmp.write("pipelines/llm-policy.json", swapped_doc.dump(2));

  const auto a = run(base, tmp.path() / "a");
  ASSERT_EQ(a.exit_code, 4) << a.out << a.err;  // no AMD GPU here: the verifier says no_device
  EXPECT_EQ(plugins_started(a.out)["policy/policy"], "r2r.policy.playbook") << a.out;
  EXPECT_EQ(server.request_count(), 0u);

  const auto b = run_process("R2R_TEST_KEY=sk-ant-test-0123456789 " +
                             r2r::test::run_command(tmp.path(), "'" + repo.string() + "' --json --run-dir '" +
                                                                    (tmp.path() / "b").string() + "' --pipeline '" +
                                                                    swapped.string() + "'"));
  EXPECT_EQ(plugins_started(b.out)["policy/policy"], "r2r.policy.llm") << b.out << b.err;
  EXPECT_GE(server.request_count(), 1u) << "the execute stage asked the model\n" << b.out << b.err;
  EXPECT_THAT(read_text(tmp.path() / "b/execute/trajectory.jsonl"), HasSubstr("policy swap test: nothing to do"));
}

// The intake's notes reach the run's plan as they reach `repo2rocm plan`'s: a plain directory is
// planned from a snapshot pinned by its content hash, and a resumed run keeps the note.
class RunEngineIntake : public RunEngine {};

TEST_F(RunEngineIntake, APlainDirectoryRunCarriesTheIntakeNoteIntoItsPlan) {
  const fs::path plain = tmp.path() / "plain";
  fs::copy(r2r::test::env_path("R2R_SOURCE_DIR") / "examples/fused-rmsnorm", plain, fs::copy_options::recursive);
  const fs::path dir = tmp.path() / "run-plain";
  auto go = [&] {
    return run_process(r2r::test::run_command(tmp.path(), "'" + plain.string() + "' --json --until plan --run-dir '" +
                                                              dir.string() + "' --pipeline '" +
                                                              local_pipeline().string() + "'"));
  };
  const auto first = go();
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const json plan = json::parse(read_text(dir / "plan.json"));
  ASSERT_EQ(plan["notes"].size(), 1u) << plan["notes"].dump();
  EXPECT_EQ(plan["notes"][0]["kind"], "unpinned_directory");
  EXPECT_THAT(plan["repository"].value("content_hash", ""), ::testing::MatchesRegex("git-tree:[0-9a-f]{40}"));
  // Resumed: intake and plan are skipped, the plan on disk is the same file.
  const auto again = go();
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(json::parse(read_text(dir / "plan.json")), plan);
}
