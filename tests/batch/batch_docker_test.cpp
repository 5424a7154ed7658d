// SPDX-License-Identifier: MIT
// The local-pool acceptance with real runs: `repo2rocm batch` on r2r.scheduler.local over 3
// fake GPUs (a KFD topology fixture given to the scheduler only: the runs themselves see this
// host, which has no AMD GPU) runs 12 fixture repositories, each a real `repo2rocm run` subprocess
// in a private dockerd (Mode 1 ported and executed by the playbook, Mode 0 README baselines, one
// base image with no python so that baseline fails). Checked: never two jobs on one GPU (from the
// events), every run directory complete, the summary's counts equal the runs' own verdicts; then
// the same batch SIGKILLed at 10 random points and resumed gives the same summary, and no run was
// executed twice (each run directory started once, each trajectory as long as the straight one's).
// Skips, saying why, only when dockerd cannot start here.
#include "../run/private_dockerd.hpp"
#include "batch_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <set>
#include <thread>

namespace {
using namespace r2r::test;
using namespace r2r::test::batch;
using nlohmann::json;
namespace fs = std::filesystem;

const std::map<std::string, std::string> python_tools = {
    {"pip", "echo \"pip $*\"\n"},
    {"python", "echo 'final loss: 0.0451'\n"},
};

struct run_facts {
  std::string verdict;
  int starts = 0;         // run_started events in the run's own events.jsonl
  int trajectory = 0;     // turns in execute/trajectory.jsonl
  bool complete = false;  // run.json, events with a verdict, and (Mode 1) a bundle with its report
};

int lines(const fs::path& p) {
  const std::string text = read_text(p);
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

std::map<std::string, run_facts> facts(const fs::path& batch_dir) {
  std::map<std::string, run_facts> out;
  for (const auto& d : fs::directory_iterator(batch_dir / "runs")) {
    run_facts f;
    for (const auto& e : read_events(d.path())) {
      if (e.value("event", "") == "run_started") ++f.starts;
      if (e.value("event", "") == "verdict") f.verdict = e.value("outcome", "");
    }
    f.trajectory = lines(d.path() / "execute" / "trajectory.jsonl");
    const bool mode1 = d.path().filename().string().find("-m1") != std::string::npos;
    f.complete = fs::exists(d.path() / "run.json") && !f.verdict.empty() &&
                 (!mode1 || fs::exists(d.path() / "bundle" / "report.json"));
    out[d.path().filename().string()] = f;
  }
  return out;
}

class BatchDocker : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "dockerd needs root here; run the suite as root (CI does)";
    if (run_process("command -v dockerd && command -v docker").exit_code != 0)
      GTEST_SKIP() << "dockerd/docker not installed (scripts/bootstrap.sh installs docker.io)";
    dockerd = std::make_unique<private_dockerd>(tmp.path() / "d");
    if (!dockerd->ready()) GTEST_SKIP() << "dockerd could not start here:\n" << dockerd->log();
    dockerd->import_base("local/r2r-batch-base:py", python_tools);
    dockerd->import_base("local/r2r-batch-base:nopython", {{"pip", "echo \"pip $*\"\n"}});
    write_fake_gpus(sys, 3);
    // 12 repositories: Mode 1 (no_device here), Mode 0 (no_device), Mode 0 without python
    // (baseline_failed). The mode is in the name so a check can tell them apart.
    std::string m = "repo,mode,base_image\n";
    for (int i = 0; i < 12; ++i) {
      const int mode = i % 4 < 2 ? 1 : 0;
      const std::string name = "lab" + std::to_string(i) + "-m" + std::to_string(mode);
      make_example_repo("fused-rmsnorm", tmp.path() / "repos" / name);
      m += (tmp.path() / "repos" / name).string() + "," + std::to_string(mode) + "," +
           (i % 4 == 3 ? "local/r2r-batch-base:nopython" : "local/r2r-batch-base:py") + "\n";
    }
    tmp.write("m.csv", m);
  }
  std::string batch(const fs::path& out, const std::string& extra) const {
    return "DOCKER_HOST='unix://" + dockerd->socket() + "' CONTAINER_HOST='unix://" +
           (tmp.path() / "no-podman.sock").string() + "' R2R_CACHE_DIR='" + (tmp.path() / "cache").string() +
           "' R2R_STATE_DIR='" + (tmp.path() / "state").string() + "' " +
           batch_command("'" + (tmp.path() / "m.csv").string() + "' --out '" + out.string() +
                         "' --scheduler-config '{\"sysroot\": \"" + sys.path().string() + "\"}' " + extra);
  }
  temp_dir tmp, sys;
  std::unique_ptr<private_dockerd> dockerd;
};

TEST_F(BatchDocker, TwelveRealRunsOnThreeGpusThenTenSigkillsAndResumeGiveTheSameSummary) {
  const fs::path straight = tmp.path() / "straight";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_process(batch(straight, "--json"));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto events = read_events(straight);
  EXPECT_EQ(gpu_overlaps(events), std::vector<std::string>{});
  std::set<std::string> gpus;
  for (const auto& e : events)
    if (e.value("event", "") == "job_finished") gpus.insert(e.value("gpu", ""));
  EXPECT_EQ(gpus, (std::set<std::string>{"0", "1", "2"}));
  const auto once = facts(straight);
  ASSERT_EQ(once.size(), 12u);
  std::map<std::string, int> verdicts;
  for (const auto& [key, f] : once) {
    EXPECT_TRUE(f.complete) << key;
    EXPECT_EQ(f.starts, 1) << key;
    ++verdicts[f.verdict];
    if (key.find("-m1") != std::string::npos) {
      EXPECT_GT(f.trajectory, 0) << key << ": Mode 1 executed";
    }
  }
  const auto summary = read_json_file(straight / "summary.json");
  EXPECT_EQ(summary["totals"]["by_result"], json(verdicts));
  EXPECT_EQ(verdicts["no_device"], 9) << json(verdicts).dump();
  EXPECT_EQ(verdicts["baseline_failed"], 3) << json(verdicts).dump();

  // The same batch, its controller SIGKILLed at 10 random points, then resumed to the end.
  const fs::path killed = tmp.path() / "killed";
  std::mt19937 rng(20261202);
  std::uniform_int_distribution<int> delay_ms(300, std::max(600, static_cast<int>(wall * 1000 / 8)));
  int kills = 0;
  for (int i = 0; i < 10; ++i) {
    const bool begun = fs::exists(killed / "batch.json");
    const auto launched =
        run_process("(" + batch(killed, begun ? "--json --resume" : "--json") + " >/dev/null 2>&1 & echo $!)");
    const pid_t pid = std::atoi(launched.out.c_str());
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    const bool controller = is_repo2rocm(pid);
    if (::kill(pid, SIGKILL) == 0 && controller) ++kills;
    for (int w = 0; w < 200 && ::kill(pid, 0) == 0; ++w) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(kills, 5) << "most kills must land on the batch controller while it still runs";
  const auto last = run_process(batch(killed, fs::exists(killed / "batch.json") ? "--json --resume" : "--json"));
  ASSERT_EQ(last.exit_code, 0) << last.out << last.err;
  EXPECT_EQ(results(killed), results(straight)) << "the same summary";
  EXPECT_EQ(read_json_file(killed / "summary.json")["totals"]["by_result"], summary["totals"]["by_result"]);
  const auto resumed = facts(killed);
  ASSERT_EQ(resumed.size(), 12u);
  for (const auto& [key, f] : resumed) {
    EXPECT_TRUE(f.complete) << key;
    EXPECT_EQ(f.starts, 1) << key << ": run started more than once";
    EXPECT_EQ(f.trajectory, once.at(key).trajectory) << key << ": trajectory differs from the straight run's";
  }
  for (const auto& d : fs::directory_iterator(killed / "jobs"))
    EXPECT_FALSE(fs::exists(d.path() / "a2")) << d.path() << ": a second attempt";
  EXPECT_EQ(gpu_overlaps(read_events(killed)), std::vector<std::string>{});
  EXPECT_EQ(dockerd->docker("ps -aq --filter label=org.repo2rocm.sandbox").out, "");
}

}  // namespace
