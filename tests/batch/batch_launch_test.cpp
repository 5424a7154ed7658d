// SPDX-License-Identifier: MIT
// r2r::batch's set-up around the engine (launch.hpp): the scheduler config the command line gives,
// the job runner's argv, the scheduler lookup, and `batch report` on a directory without runs.
#include "../unit/test_support.hpp"
#include "launch.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace {
using namespace r2r::batch;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

TEST(BatchLaunch, SchedulerConfigTakesJsonTextOrFileAndAddsTheGpus) {
  auto empty = scheduler_config("r2r.scheduler.local", "", "");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_EQ(*empty, nlohmann::json::object());
  auto inline_text = scheduler_config("r2r.scheduler.local", R"({"slots": 2})", "0,,3");
  ASSERT_TRUE(inline_text) << inline_text.error().message;
  EXPECT_EQ((*inline_text)["slots"], 2);
  EXPECT_EQ((*inline_text)["gpus"], nlohmann::json::array({"0", "3"}));
  r2r::test::temp_dir tmp;
  const auto file = tmp.write("sched.json", R"({"shared_dir": "/srv"})");
  auto from_file = scheduler_config("r2r.scheduler.slurm", "@" + file.string(), "");
  ASSERT_TRUE(from_file) << from_file.error().message;
  EXPECT_EQ((*from_file)["shared_dir"], "/srv");
}

TEST(BatchLaunch, SchedulerConfigRefusesBadInputWithAUsageErrorThatNamesTheOption) {
  auto not_json = scheduler_config("r2r.scheduler.local", "{slots: 2", "");
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().where, r2r::core::phase::usage);
  EXPECT_THAT(not_json.error().message, HasSubstr("--scheduler-config is not JSON"));
  auto missing = scheduler_config("r2r.scheduler.local", "@/nonexistent/sched.json", "");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("cannot read /nonexistent/sched.json"));
  // --gpus only means something to the local pool; another scheduler would silently ignore it.
  auto gpus_elsewhere = scheduler_config("r2r.scheduler.slurm", "", "0,1");
  ASSERT_FALSE(gpus_elsewhere);
  EXPECT_EQ(gpus_elsewhere.error().where, r2r::core::phase::usage);
  EXPECT_THAT(gpus_elsewhere.error().message, HasSubstr("--gpus is for r2r.scheduler.local"));
}

TEST(BatchLaunch, RunnerArgvCarriesAbsolutePluginPathsAndTheLogLevel) {
  ::setenv("R2R_BATCH_RUNNER", "/opt/fake-run", 1);
  const auto argv = runner_argv({"rel/plugins"}, "debug");
  ::unsetenv("R2R_BATCH_RUNNER");
  ASSERT_EQ(argv.size(), 5u);
  EXPECT_EQ(argv[0], "/opt/fake-run");
  EXPECT_EQ(argv[1], "--plugin-path");
  EXPECT_EQ(argv[2], (fs::current_path() / "rel/plugins").string());
  EXPECT_EQ(argv[3], "--log-level");
  EXPECT_EQ(argv[4], "debug");
  // Without the override a job runs this very binary.
  EXPECT_EQ(runner_argv({}, "warn").front(), fs::read_symlink("/proc/self/exe").string());
}

TEST(BatchLaunch, AMissingSchedulerIsTheOperatorsToFix) {
  engine_options o;
  o.scheduler_id = "r2r.scheduler.nonexistent";
  auto result = run_with_scheduler(o, {}, nlohmann::json::object());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().where, r2r::core::phase::config);
  EXPECT_THAT(result.error().message, HasSubstr("plugins list --kind scheduler"));
}

TEST(BatchLaunch, ReportNeedsRunDirectories) {
  r2r::test::temp_dir tmp;
  tmp.write("runs/not-a-run/notes.txt", "x");
  auto none = rebuild_summary(tmp.path());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().where, r2r::core::phase::usage);
  EXPECT_THAT(none.error().message, HasSubstr("no run directories"));
  EXPECT_FALSE(fs::exists(tmp.path() / "summary.json"));
}

}  // namespace
