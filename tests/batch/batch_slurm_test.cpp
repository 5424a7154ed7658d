// SPDX-License-Identifier: MIT
// `repo2rocm batch --scheduler r2r.scheduler.slurm` on a real Slurm (slurmctld, slurmd, munged from
// Debian) that each test starts under its temporary directory (tests/batch/slurm_cluster.sh) with
// fake GPU gres: one node with 2 GPUs, and 3 nodes (three slurmd with distinct names on this
// machine); scancel of a running job; slurmctld stopped and restarted mid-batch; the batch
// controller (repo2rocm batch) SIGKILLed mid-batch and resumed. Runs are
// the stand-in runner (fake_run.sh). Skips, saying why, only when Slurm is not installed or not root.
#include "batch_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace {
using namespace r2r::test;
using namespace r2r::test::batch;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

const std::string cluster_script = std::string(R2R_TEST_BATCH_DIR) + "/slurm_cluster.sh";

class BatchSlurm : public ::testing::Test {
 protected:
  void start(int nodes, int gpus) {
    if (geteuid() != 0) GTEST_SKIP() << "slurmd needs root here; run the suite as root (CI does)";
    if (run_process("command -v slurmctld && command -v slurmd && command -v munged && command -v sbatch").exit_code !=
        0)
      GTEST_SKIP() << "Slurm is not installed (scripts/bootstrap.sh installs slurm-wlm and munge)";
    const auto r = run_process("'" + cluster_script + "' start '" + tmp.path().string() + "' " + std::to_string(nodes) +
                               " " + std::to_string(gpus));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err << read_text("slurmctld.log");
    started_ = true;
    conf = (tmp.path() / "slurm.conf").string();
  }
  void TearDown() override {
    if (started_) run_process("'" + cluster_script + "' stop '" + tmp.path().string() + "'");
  }
  std::string read_text(const std::string& name) const {
    return run_process("cat '" + (tmp.path() / name).string() + "' 2>/dev/null").out;
  }
  std::string batch(const std::string& manifest, const std::string& extra) {
    tmp.write("m.csv", manifest);
    return "R2R_BATCH_RUNNER='" + fake_runner() + "' " +
           batch_command("'" + (tmp.path() / "m.csv").string() + "' --out '" + out().string() +
                         "' --scheduler r2r.scheduler.slurm --scheduler-config '{\"shared_dir\": \"" +
                         tmp.path().string() + "\", \"slurm_conf\": \"" + conf + "\"}' " + extra);
  }
  std::string slurm(const std::string& command) const {
    return run_process("SLURM_CONF='" + conf + "' " + command).out;
  }
  fs::path out() const { return tmp.path() / "b"; }
  temp_dir tmp;
  std::string conf;
  bool started_ = false;
};

std::string repos(int n, const std::string& prefix = "repo") {
  std::string m = "repo\n";
  for (int i = 0; i < n; ++i)
    m += "https://example.org/lab/" + prefix + std::to_string(i) + (i == 1 ? "-notverified" : "") + ".git\n";
  return m;
}

TEST_F(BatchSlurm, SingleNodeTwoGpus) {
  start(1, 2);
  const auto r = run_process("R2R_FAKE_RUN_SLEEP=1 " + batch(repos(6), "--json"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto res = results(out());
  ASSERT_EQ(res.size(), 6u);
  EXPECT_EQ(res.at("repo1-notverified"), "not_verified");
  int verified = 0;
  for (const auto& [k, v] : res) verified += v == "verified";
  EXPECT_EQ(verified, 5);
  const auto events = read_events(out());
  EXPECT_EQ(gpu_overlaps(events), std::vector<std::string>{});
  std::set<std::string> gpus;
  for (const auto& e : events)
    if (e.value("event", "") == "job_finished") gpus.insert(e.value("gpu", ""));
  EXPECT_EQ(gpus, (std::set<std::string>{"0", "1"})) << "Slurm placed the jobs on both gres GPUs";
  for (const auto& d : fs::directory_iterator(out() / "runs")) EXPECT_EQ(invocations(d.path()), 1) << d.path();
}

TEST_F(BatchSlurm, ThreeNodesShareTheBatch) {
  start(3, 1);
  const auto r = run_process("R2R_FAKE_RUN_SLEEP=1.5 " + batch(repos(6), "--json"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(results(out()).size(), 6u);
  std::set<std::string> nodes;
  for (const auto& e : read_events(out()))
    if (e.value("event", "") == "job_finished") nodes.insert(e.value("node", ""));
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(gpu_overlaps(read_events(out())), std::vector<std::string>{});
}

TEST_F(BatchSlurm, ScancelIsReportedCancelledNotLost) {
  start(1, 2);
  const auto launched = run_process("(R2R_FAKE_RUN_SLEEP=60 " + batch(repos(1, "slow"), "--json") + " >'" +
                                    (tmp.path() / "batch.log").string() + "' 2>&1 & echo $!)");
  const pid_t pid = std::atoi(launched.out.c_str());
  const fs::path job = out() / "jobs" / "slow0" / "a1";
  for (int i = 0; i < 300 && !fs::exists(job / "started"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(job / "started")) << read_text("batch.log");
  const std::string id = run_process("cat '" + (job / "slurm_job_id").string() + "'").out;
  ASSERT_FALSE(id.empty());
  slurm("scancel " + id);
  for (int i = 0; i < 300 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_NE(::kill(pid, 0), 0) << "the batch did not end after scancel";
  EXPECT_EQ(results(out()).at("slow0"), "cancelled");
}

TEST_F(BatchSlurm, AControllerRestartMidBatchIsSurvived) {
  start(1, 2);
  const auto launched = run_process("(R2R_FAKE_RUN_SLEEP=3 " + batch(repos(4), "--json") + " >'" +
                                    (tmp.path() / "batch.log").string() + "' 2>&1 & echo $!)");
  const pid_t pid = std::atoi(launched.out.c_str());
  for (int i = 0; i < 300 && !fs::exists(out() / "jobs" / "repo0" / "a1" / "started"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto restart = run_process("'" + cluster_script + "' restart-controller '" + tmp.path().string() + "'");
  ASSERT_EQ(restart.exit_code, 0) << restart.err;
  for (int i = 0; i < 600 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (::kill(pid, 0) == 0) {
    ::kill(pid, SIGKILL);
    FAIL() << "the batch did not finish:\n" << read_text("batch.log") << read_text("slurmctld.log");
  }
  const auto res = results(out());
  ASSERT_EQ(res.size(), 4u) << read_text("batch.log");
  EXPECT_EQ(res.at("repo0"), "verified");
  EXPECT_EQ(res.at("repo1-notverified"), "not_verified");
  for (const auto& d : fs::directory_iterator(out() / "runs")) EXPECT_EQ(invocations(d.path()), 1) << d.path();
}

TEST_F(BatchSlurm, AHardKilledBatchControllerIsResumedNothingTwiceNothingLost) {
  start(1, 2);
  const std::string m = repos(5);
  const auto launched = run_process("(R2R_FAKE_RUN_SLEEP=2 " + batch(m, "--json") + " >'" +
                                    (tmp.path() / "batch.log").string() + "' 2>&1 & echo $!)");
  const pid_t pid = std::atoi(launched.out.c_str());
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 300 && !fs::exists(out() / "jobs" / "repo0" / "a1" / "started"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(out() / "jobs" / "repo0" / "a1" / "started")) << read_text("batch.log");
  ASSERT_TRUE(is_repo2rocm(pid)) << "the process to kill is the batch controller";
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  for (int w = 0; w < 200 && ::kill(pid, 0) == 0; ++w) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_NE(::kill(pid, 0), 0);
  // Slurm keeps running what it was given while no controller of ours is alive.
  const auto r = run_process("R2R_FAKE_RUN_SLEEP=2 " + batch(m, "--json --resume"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << read_text("slurmctld.log");
  const auto res = results(out());
  ASSERT_EQ(res.size(), 5u) << r.out;
  EXPECT_EQ(res.at("repo1-notverified"), "not_verified");
  for (const auto& [k, v] : res) {
    if (k != "repo1-notverified") {
      EXPECT_EQ(v, "verified") << k;
    }
  }
  for (const auto& d : fs::directory_iterator(out() / "runs")) EXPECT_EQ(invocations(d.path()), 1) << d.path();
  for (const auto& d : fs::directory_iterator(out() / "jobs"))
    EXPECT_FALSE(fs::exists(d.path() / "a2")) << d.path() << ": a second attempt";
  EXPECT_EQ(gpu_overlaps(read_events(out())), std::vector<std::string>{});
}

}  // namespace
