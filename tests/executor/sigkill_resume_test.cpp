// SPDX-License-Identifier: MIT
// Acceptance test of resume: `repo2rocm execute` is killed with SIGKILL at random points (20
// deterministic trials; some resumes are killed too) and `repo2rocm resume` must finish with the
// same trajectory (modulo timestamps and durations) and the same workspace as an uninterrupted run.
// Real processes, the scripted policy, the in-tree guards and the real r2r.sandbox.local.
#include "executor_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <thread>

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

json script() {
  const std::string patch =
      "--- a/src/model.py\n+++ b/src/model.py\n@@ -1,2 +1,2 @@\n def forward(x):\n-    return x\n+    return 2 * x\n";
  return json::array({
      json{{"type", "run"}, {"command", "echo a >> log; sleep 0.03"}},
      json{{"type", "write_file"}, {"path", "src/model.py"}, {"content", "def forward(x):\n    return x\n"}},
      json{{"type", "checkpoint"}, {"label", "base"}},
      json{{"type", "run"}, {"command", "echo b >> log; seq 1 3 > nums; sleep 0.03"}},
      json{{"type", "apply_patch"}, {"patch", patch}},
      json{{"type", "run"}, {"command", "echo 'RuntimeError: boom at 0x1234' >&2; echo x >> log; exit 3"}},
      json{{"type", "write_file"}, {"path", "requirements.txt"}, {"content", "einops\n"}},
      json{{"type", "run"}, {"command", "CUDA_VISIBLE_DEVICES= python3 -c 1"}},
      json{{"type", "rollback"}, {"to", "base"}},
      json{{"type", "run"}, {"command", "echo c >> log; ls -R > tree.txt; sleep 0.03"}},
      json{{"type", "build_kernel"}, {"command", "echo k > k.o"}},
      json{{"type", "read_file"}, {"path", "log"}},
      json{{"type", "give_up"}, {"reason", "script complete"}},
  });
}

// The line without what legitimately differs between runs.
json stable(json line) {
  for (const auto* k : {"timestamp", "elapsed_s", "seconds"}) line.erase(k);
  if (line.contains("observation")) line["observation"].erase("seconds");
  return line;
}

std::map<std::string, std::string> tree(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const auto rel = fs::relative(e.path(), root).string();
    out[rel] = e.is_regular_file() ? r2r::test::read_text(e.path()) : std::string("<dir>");
  }
  return out;
}

std::size_t complete_lines(const fs::path& file) {
  std::size_t n = 0;
  for (char c : r2r::test::read_text(file)) n += c == '\n' ? 1 : 0;
  return n;
}

pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class SigkillResume : public ::testing::Test {
 protected:
  void SetUp() override {
    pipeline_file = dir.write(
        "pipeline.json",
        r2r::test::pipeline(script(), {r2r::test::guard_stage("cpu-fallback", "r2r.guard.cpu-fallback"),
                                       r2r::test::guard_stage("accelerator-swap", "r2r.guard.accelerator-swap"),
                                       r2r::test::guard_stage("success-claim", "r2r.guard.success-claim")})
            .dump(2));
    plan_file = dir.write("plan.json", R"({"workload": {"command": "python train.py"}, "arch": "gfx942"})");
  }
  std::vector<std::string> execute_args(const fs::path& run_dir) const {
    return {exe.string(),           "execute",   "--plan",         plan_file.string(), "--pipeline",
            pipeline_file.string(), "--run-dir", run_dir.string(), "--arch",           "gfx942"};
  }
  std::vector<std::string> resume_args(const fs::path& run_dir) const {
    return {exe.string(), "resume", run_dir.string()};
  }

  r2r::test::temp_dir dir;
  fs::path pipeline_file;
  fs::path plan_file;
  fs::path exe = r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm";
};

TEST_F(SigkillResume, TwentyRandomKillsResumeToTheSameTrajectoryAndWorkspace) {
  const fs::path reference = dir.path() / "reference";
  const auto t0 = clock_type::now();
  ASSERT_EQ(wait_exit(spawn(execute_args(reference), dir.path() / "reference.log")), 1)
      << r2r::test::read_text(dir.path() / "reference.log");
  const auto reference_ms = std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - t0).count();
  const auto expected = r2r::test::trajectory(reference);
  ASSERT_EQ(expected.size(), script().size()) << r2r::test::read_text(dir.path() / "reference.log");
  const auto expected_tree = tree(reference / "workspace");
  ASSERT_EQ(expected_tree.at("log"), "a\nc\n") << "b came after the checkpoint rolled back to";

  int killed_mid_run = 0;
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::mt19937 rng(7919u * static_cast<unsigned>(trial + 1));
    const fs::path run = dir.path() / ("trial-" + std::to_string(trial));
    const fs::path log = dir.path() / ("trial-" + std::to_string(trial) + ".log");
    pid_t pid = spawn(execute_args(run), log);
    // Even trials: kill once K lines are durable (plus a little); odd trials: at a random time.
    if (trial % 2 == 0) {
      const std::size_t k = rng() % expected.size();
      while (complete_lines(run / "trajectory.jsonl") < k && ::waitpid(pid, nullptr, WNOHANG) == 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % (reference_ms + 1)));
    }
    ::kill(pid, SIGKILL);
    const int first = wait_exit(pid);
    if (first == 128 + SIGKILL) ++killed_mid_run;
    // A third of the trials kill the first resume as well.
    if (trial % 3 == 0 && fs::exists(run / "run.json")) {
      pid = spawn(resume_args(run), log);
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % (reference_ms / 2 + 1)));
      ::kill(pid, SIGKILL);
      wait_exit(pid);
    }
    int code = 0;
    if (fs::exists(run / "run.json")) {
      code = wait_exit(spawn(resume_args(run), log));
    } else {  // killed before the run started: nothing was recorded, start it again
      fs::remove_all(run);
      code = wait_exit(spawn(execute_args(run), log));
    }
    ASSERT_EQ(code, 1) << r2r::test::read_text(log);
    const auto got = r2r::test::trajectory(run);
    ASSERT_EQ(got.size(), expected.size()) << r2r::test::read_text(log);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(stable(got[i]), stable(expected[i])) << "line " << i;
    }
    EXPECT_EQ(tree(run / "workspace"), expected_tree);
    EXPECT_EQ(json::parse(r2r::test::read_text(run / "outcome.json"))["outcome"], "gave_up");
  }
  EXPECT_GE(killed_mid_run, 10) << "most kills must land while the run is in progress";
}

}  // namespace

namespace {

TEST(ExecutorCli, UsageErrorsExitTwoWithWhatToDo) {
  const auto exe = (r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string();
  auto r = r2r::test::run_process(exe + " execute --run-dir /tmp/x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("--plan PLAN.json"));
  r2r::test::temp_dir dir;
  r = r2r::test::run_process(exe + " resume " + dir.path().string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("run.json"));
  r = r2r::test::run_process(exe + " execute --plan x --pipeline y --run-dir z --max-turns lots");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("--max-turns must be a non-negative number"));
}

}  // namespace
