// SPDX-License-Identifier: MIT
// The repo2rocm executable, run as a process: exit codes and messages users see.
#include "../unit/test_support.hpp"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using ::testing::HasSubstr;

std::string exe() {
  return (r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string();
}
std::string source(const std::string& rel) {
  return (r2r::test::env_path("R2R_SOURCE_DIR") / rel).string();
}

TEST(Cli, VersionAndHelp) {
  auto v = r2r::test::run_process(exe() + " --version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_THAT(v.out, HasSubstr("plugin ABI 1.0"));
  auto h = r2r::test::run_process(exe() + " --help");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_THAT(h.out, HasSubstr("exit codes: 0 ok, 1 error, 2 usage"));
  auto ch = r2r::test::run_process(exe() + " validate --help");
  EXPECT_EQ(ch.exit_code, 0);
  EXPECT_THAT(ch.out, HasSubstr("usage: repo2rocm validate PIPELINE.json"));
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(r2r::test::run_process(exe()).exit_code, 2);
  auto unknown = r2r::test::run_process(exe() + " frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown command 'frobnicate'"));
  auto foreign = r2r::test::run_process(exe() + " validate x.json --kind guard");
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_THAT(foreign.err, HasSubstr("--kind is not an option of `validate`"));
  EXPECT_EQ(r2r::test::run_process(exe() + " --log-level loud plugins list").exit_code, 2);
  EXPECT_EQ(r2r::test::run_process(exe() + " --bogus").exit_code, 2);
}

// `batch` goes through the same command table and option parser as every other command.
TEST(Cli, BatchSharesTheCommandTableAndOptionChecks) {
  auto help = r2r::test::run_process(exe() + " --help");
  EXPECT_THAT(help.out, HasSubstr("repo2rocm batch MANIFEST"));
  EXPECT_THAT(help.out, HasSubstr("repo2rocm batch report DIR"));
  auto batch_help = r2r::test::run_process(exe() + " batch --help");
  EXPECT_EQ(batch_help.exit_code, 0);
  EXPECT_THAT(batch_help.out, HasSubstr("usage: repo2rocm batch MANIFEST"));
  auto foreign = r2r::test::run_process(exe() + " batch m.csv --commit abc");
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_THAT(foreign.err, HasSubstr("--commit is not an option of `batch`"));
  auto batch_only = r2r::test::run_process(exe() + " run x --scheduler r2r.scheduler.local");
  EXPECT_EQ(batch_only.exit_code, 2);
  EXPECT_THAT(batch_only.err, HasSubstr("--scheduler is not an option of `run`"));
  for (const char* bad : {"--jobs -1", "--jobs two", "--max-usd 1x", "--max-tokens -5"}) {
    auto r = r2r::test::run_process(exe() + " batch m.csv " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr("must be a non-negative number")) << bad;
  }
  r2r::test::temp_dir tmp;
  auto report = r2r::test::run_process(exe() + " batch report '" + tmp.path().string() + "'");
  EXPECT_EQ(report.exit_code, 2);
  EXPECT_THAT(report.err, HasSubstr("no run directories"));
}

TEST(Cli, PluginsListShowsInTreePluginsAndDisabledFilesWithReasons) {
  r2r::test::temp_dir tmp;
  tmp.write("libr2r-guard-corrupt.so", "definitely not an ELF file");
  auto r = r2r::test::run_process(exe() + " plugins list --plugin-path " + tmp.path().string() + " --plugin-path " +
                                  r2r::test::fixture_dir("abi_major_mismatch").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("r2r.guard.cpu-fallback"));
  EXPECT_THAT(r.out, HasSubstr("0.1.0"));
  EXPECT_THAT(r.out, HasSubstr("disabled (2):"));
  EXPECT_THAT(r.out, HasSubstr("libr2r-guard-corrupt.so: not a readable ELF shared library"));
  EXPECT_THAT(r.out, HasSubstr("plugin ABI 2.0 not compatible with host ABI 1.0"));

  auto j = r2r::test::run_process(exe() + " plugins list --json --plugin-path " + tmp.path().string());
  ASSERT_EQ(j.exit_code, 0);
  const auto doc = nlohmann::json::parse(j.out);
  bool found = false;
  for (const auto& p : doc["plugins"]) {
    if (p["id"] == "r2r.guard.cpu-fallback") {
      found = true;
      EXPECT_EQ(p["kind"], "guard");
      EXPECT_EQ(p["abi"], "1.0");
      EXPECT_EQ(p["manifest"], true);
    }
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(doc["disabled"].size(), 1u);
  EXPECT_EQ(doc["disabled"][0]["phase"], "preflight");
}

TEST(Cli, DuplicateIdsFailTheListing) {
  auto r = r2r::test::run_process(exe() + " plugins list --plugin-path " +
                                  r2r::test::fixture_dir("duplicate_id_a").string() + " --plugin-path " +
                                  r2r::test::fixture_dir("duplicate_id_b").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("duplicate plugin id"));
}

TEST(Cli, EnvironmentPluginPathIsSearched) {
  auto r = r2r::test::run_process("R2R_PLUGIN_PATH=" + r2r::test::fixture_dir("echo").string() + " " + exe() +
                                  " plugins list --kind llm");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("test.llm.echo"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("r2r.guard.cpu-fallback")));
}

TEST(Cli, DescribeShowsSchemaAndLibrary) {
  auto r = r2r::test::run_process(exe() + " plugins describe r2r.guard.cpu-fallback");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("kind:        guard"));
  EXPECT_THAT(r.out, HasSubstr("libr2r-guard-cpu-fallback.so"));
  EXPECT_THAT(r.out, HasSubstr("\"max_scan_bytes\""));
  auto missing = r2r::test::run_process(exe() + " plugins describe r2r.guard.nope");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("no such plugin"));
}

TEST(Cli, ValidateTheDefaultPipeline) {
  auto r = r2r::test::run_process(exe() + " validate " + source("configs/pipelines/default.json"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ok: "));
}

TEST(Cli, ValidateWrongTypeExitsTwoWithPluginPointerAndExpectation) {
  r2r::test::temp_dir tmp;
  const auto file = tmp.write("p.json", R"({"version": 1, "pipeline": [
    {"stage": "guard", "use": "r2r.guard.cpu-fallback", "config": {"max_scan_bytes": "lots"}}]})");
  auto r = r2r::test::run_process(exe() + " validate " + file.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("r2r.guard.cpu-fallback /pipeline/0/config/max_scan_bytes"));
  EXPECT_THAT(r.err, HasSubstr("expected {\"minimum\":1024,\"type\":\"integer\"}"));
  EXPECT_THAT(r.err, HasSubstr("found string \"lots\""));

  auto j = r2r::test::run_process(exe() + " validate --json " + file.string());
  EXPECT_EQ(j.exit_code, 2);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["ok"], false);
  EXPECT_EQ(doc["problems"][0]["pointer"], "/pipeline/0/config/max_scan_bytes");
  EXPECT_EQ(doc["problems"][0]["plugin_id"], "r2r.guard.cpu-fallback");
}

TEST(Cli, PipelineSearchPathsAreRelativeToThePipelineFile) {
  r2r::test::temp_dir tmp;
  std::filesystem::create_directories(tmp.path() / "plugins");
  std::filesystem::copy_file(r2r::test::fixture("echo"), tmp.path() / "plugins" / "libr2r-llm-echo.so");
  const auto file = tmp.write("pipelines/p.json", R"({"version": 1, "plugins": {"search_paths": ["../plugins"]},
    "instances": {"llm": {"use": "test.llm.echo"}},
    "pipeline": [{"stage": "guard", "use": "r2r.guard.cpu-fallback"}]})");
  auto r = r2r::test::run_process(exe() + " validate " + file.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Cli, PluginsCallRunsOneMethod) {
  auto r =
      r2r::test::run_process(exe() +
                             " plugins call r2r.guard.cpu-fallback check_action "
                             "'{\"action\":{\"type\":\"run\",\"command\":\"CUDA_VISIBLE_DEVICES= python train.py\"}}'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["decision"], "deny");
  auto bad = r2r::test::run_process(exe() + " plugins call r2r.guard.cpu-fallback check_action '{oops'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("request is not valid JSON"));
  auto cfg = r2r::test::run_process(exe() +
                                    " plugins call r2r.guard.cpu-fallback check_action '{}' --config "
                                    "'{\"extra_patterns\": [\"([\"]}'");
  EXPECT_EQ(cfg.exit_code, 1);
  EXPECT_THAT(cfg.err, HasSubstr("not a valid ECMAScript regex"));
}

}  // namespace
