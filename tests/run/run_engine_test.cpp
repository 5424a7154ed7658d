// SPDX-License-Identifier: MIT
// The run engine (r2r/run/engine.hpp) as `repo2rocm run` drives it on examples/fused-rmsnorm with
// the local sandbox: one registry and one sandbox instance per run (counted in the loader's log),
// the plugins a run uses are the ones its pipeline file names (a one-line change swaps the verifier
// or the sandbox), a pipeline without a required stage stops before any work, and the default
// pipeline's guards include critical_source_edit, which catches a stubbed kernel.
#include "run_fixture.hpp"

#include <r2r/core/pipeline_config.hpp>
#include <r2r/core/pipeline_session.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
    for (const auto& v : json::parse(read_text(dir / "verify.json"))["verifiers"]) ids.push_back(v["plugin_id"]);
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
        "'cpu-fallback' of r2r.guard.cpu_fallback", "'critical-source-edit' of r2r.guard.critical_source_edit",
        "'scale-down' of r2r.guard.scale_down", "'image-switch' of r2r.guard.image_switch",
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
  EXPECT_THAT(r.err, HasSubstr("/pipeline"));
  EXPECT_THAT(r.err, HasSubstr("`verify` stage"));
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
