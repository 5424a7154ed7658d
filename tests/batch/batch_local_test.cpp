// SPDX-License-Identifier: MIT
// `repo2rocm batch` on r2r.scheduler.local with the stand-in runner (fake_run.sh, which writes a
// run directory's events and usage as `repo2rocm run` does): 12 repositories over 3 fake GPUs (a
// KFD topology fixture), SIGKILL of the batch at 10 random points and --resume, spend caps,
// cancellation, and the usage errors. The same batch with real runs in a private dockerd is in
// batch_docker_test.cpp.
#include "batch_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <random>
#include <set>
#include <thread>

namespace {
using namespace r2r::test;
using namespace r2r::test::batch;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string twelve_repos() {
  std::string m = "repo,commit,paper\n";
  for (int i = 0; i < 12; ++i) {
    std::string name = "https://example.org/lab/repo" + std::to_string(i);
    if (i == 3 || i == 8) name += "-notverified";
    if (i == 5) name += "-oom-once";
    m += name + ".git,c0ffee" + std::to_string(i) + ",Paper " + std::to_string(i) + "\n";
  }
  return m;
}

class BatchLocal : public ::testing::Test {
 protected:
  void SetUp() override {
    write_fake_gpus(sys, 3);
    tmp.write("m.csv", twelve_repos());
    env = "R2R_BATCH_RUNNER='" + fake_runner() + "' R2R_SYSROOT='" + sys.path().string() + "' ";
  }
  std::string batch(const std::string& args) {
    return env + batch_command("'" + (tmp.path() / "m.csv").string() + "' --out '" + out().string() + "' " + args);
  }
  fs::path out() const { return tmp.path() / "b"; }
  temp_dir tmp, sys;
  std::string env;
};

TEST_F(BatchLocal, TwelveReposOnThreeGpusNeverTwoJobsOnOneGpu) {
  const auto r = run_process("R2R_FAKE_RUN_SLEEP=0.3 " + batch("--json --mode 1"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto events = read_events(out());
  EXPECT_EQ(gpu_overlaps(events), std::vector<std::string>{});
  std::set<std::string> gpus;
  for (const auto& e : events)
    if (e.value("event", "") == "job_finished") gpus.insert(e.value("gpu", ""));
  EXPECT_EQ(gpus, (std::set<std::string>{"0", "1", "2"})) << "the pool is the three GPUs of the topology";
  // Every run directory is complete, and the summary's counts are the runs' own verdicts.
  std::map<std::string, int> verdicts;
  for (const auto& d : fs::directory_iterator(out() / "runs")) {
    std::string last;
    for (const auto& line : read_events(d.path()))  // events.jsonl of the run
      if (line.value("event", "") == "verdict") last = line.value("outcome", "");
    EXPECT_FALSE(last.empty()) << d.path();
    ++verdicts[last];
    EXPECT_EQ(invocations(d.path()), d.path().filename().string().find("oom-once") != std::string::npos ? 2 : 1)
        << d.path();
  }
  const auto summary = read_json_file(out() / "summary.json");
  EXPECT_EQ(summary["totals"]["by_result"], nlohmann::json(verdicts));
  EXPECT_EQ(verdicts["verified"], 10);
  EXPECT_EQ(verdicts["not_verified"], 2);
  EXPECT_EQ(summary["headline"], "Mode 1 10/12 · PFS mean n/a");
  EXPECT_TRUE(fs::exists(out() / "summary.html"));
  EXPECT_TRUE(fs::exists(out() / "summary.csv"));
  const auto state = read_json_file(out() / "batch.json");
  EXPECT_TRUE(state["finished"].get<bool>());
  // The OOM-killed attempt was retried (an infrastructure failure); not_verified never was.
  int retries = 0;
  for (const auto& e : events) {
    if (e.value("event", "") != "job_retry") continue;
    ++retries;
    EXPECT_THAT(e.value("key", ""), HasSubstr("oom-once"));
  }
  EXPECT_EQ(retries, 1);
  // `batch report` rebuilds the same verdicts from the run directories alone.
  fs::create_directories(tmp.path() / "copy");
  fs::copy(out() / "runs", tmp.path() / "copy" / "runs", fs::copy_options::recursive);
  const auto rep = run_process(batch_command("report '" + (tmp.path() / "copy").string() + "'"));
  ASSERT_EQ(rep.exit_code, 0) << rep.out << rep.err;
  EXPECT_THAT(rep.out, HasSubstr("Mode 1 10/12"));
  EXPECT_EQ(results(tmp.path() / "copy"), results(out()));
}

TEST_F(BatchLocal, SigkillAtTenRandomPointsThenResumeRunsNothingTwiceAndLosesNothing) {
  std::mt19937 rng(20261201);
  std::uniform_int_distribution<int> delay_ms(50, 900);
  // Jobs of 2 s (12 jobs on 3 slots: about 8 s of batch) so that the ten kills, 50-900 ms after each
  // launch, land while the batch still runs; with 0.25 s jobs the now faster batch was often done
  // before the fifth kill on an idle machine.
  const std::string start = "R2R_FAKE_RUN_SLEEP=2 " + batch("--json --jobs 3");
  const std::string resume = "R2R_FAKE_RUN_SLEEP=2 " + batch("--json --resume");
  // Controllers that said batch_started or batch_resumed: a kill lands at a random point after the
  // controller announced itself, however slowly it starts (a sanitizer build takes seconds to load
  // its plugins, so a delay counted from the launch alone killed most controllers before they had
  // written anything, and the test then checked no resume at all).
  const auto announced = [this] {
    int n = 0;
    for (const auto& e : read_events(out())) {
      const std::string event = e.value("event", "");
      n += event == "batch_started" || event == "batch_resumed" ? 1 : 0;
    }
    return n;
  };
  int kills = 0;
  for (int i = 0; i < 10; ++i) {
    // A kill before batch.json was first written leaves nothing to resume: start again.
    const bool begun = fs::exists(out() / "batch.json");
    const int before = announced();
    const auto launched = run_process("(" + (begun ? resume : start) + " >/dev/null 2>&1 & echo $!)");
    const pid_t pid = std::atoi(launched.out.c_str());
    ASSERT_GT(pid, 0);
    for (int w = 0; w < 6000 && announced() == before && ::kill(pid, 0) == 0; ++w)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    const bool controller = is_repo2rocm(pid);  // the batch process itself, not a shell around it
    if (::kill(pid, SIGKILL) == 0 && controller) ++kills;
    for (int w = 0; w < 100 && ::kill(pid, 0) == 0; ++w) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(kills, 5) << "most kills must land on the batch controller while it still runs";
  const auto r = run_process(fs::exists(out() / "batch.json") ? resume : start);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  int resumed = 0;
  for (const auto& e : read_events(out())) resumed += e.value("event", "") == "batch_resumed" ? 1 : 0;
  EXPECT_GE(resumed, kills - 1) << "each controller killed after it wrote batch.json was resumed";
  for (int i = 0; i < 12; ++i) {
    std::string key = "repo" + std::to_string(i);
    if (i == 3 || i == 8) key += "-notverified";
    if (i == 5) key += "-oom-once";
    key += "-c0ffee" + std::to_string(i);
    EXPECT_EQ(invocations(out() / "runs" / key), i == 5 ? 2 : 1) << key << " ran twice or never";
  }
  auto res = results(out());
  ASSERT_EQ(res.size(), 12u);
  int verified = 0;
  for (const auto& [k, v] : res) verified += v == "verified" ? 1 : 0;
  EXPECT_EQ(verified, 10);
  EXPECT_EQ(res["repo3-notverified-c0ffee3"], "not_verified");
  EXPECT_EQ(gpu_overlaps(read_events(out())), std::vector<std::string>{});
}

TEST_F(BatchLocal, AHardKilledControllerLeavesItsJobsRunningAndTheResumeAdoptsThem) {
  const auto launched = run_process("(R2R_FAKE_RUN_SLEEP=2 " + batch("--json --gpus 0,1,2") + " >'" +
                                    (tmp.path() / "first.log").string() + "' 2>&1 & echo $!)");
  const pid_t pid = std::atoi(launched.out.c_str());
  ASSERT_GT(pid, 0);
  // Wait until three jobs run, then SIGKILL the controller (no chance to save anything).
  const auto running = [&] {
    int n = 0;
    if (!fs::exists(out() / "jobs")) return 0;
    for (const auto& d : fs::directory_iterator(out() / "jobs")) n += fs::exists(d.path() / "a1" / "started") ? 1 : 0;
    return n;
  };
  for (int i = 0; i < 300 && running() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(running(), 3);
  ASSERT_TRUE(is_repo2rocm(pid)) << "the process to kill is the batch controller";
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  for (int w = 0; w < 200 && ::kill(pid, 0) == 0; ++w) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_NE(::kill(pid, 0), 0);
  // The jobs live in their own sessions: the controller's death did not take them down.
  std::vector<std::string> orphans;
  for (const auto& d : fs::directory_iterator(out() / "jobs")) {
    const fs::path a1 = d.path() / "a1";
    if (fs::exists(a1 / "started") && !fs::exists(a1 / "exit")) orphans.push_back(d.path().filename().string());
  }
  EXPECT_EQ(orphans.size(), 3u) << "all three jobs still run after the kill";
  const auto r = run_process("R2R_FAKE_RUN_SLEEP=2 " + batch("--json --resume"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto events = read_events(out());
  // The orphans were collected by the resumed controller as the attempt that ran, never started
  // again: no second attempt, and each run directory's runner started once (the oom-once
  // repository twice: its retry); all twelve have verdicts.
  for (const auto& k : orphans) {
    EXPECT_FALSE(fs::exists(out() / "jobs" / k / "a2")) << k << " was started again";
    EXPECT_EQ(results(out())[k], k.find("notverified") != std::string::npos ? "not_verified" : "verified") << k;
  }
  for (const auto& d : fs::directory_iterator(out() / "runs"))
    EXPECT_EQ(invocations(d.path()), d.path().filename().string().find("oom-once") != std::string::npos ? 2 : 1)
        << d.path();
  const auto res = results(out());
  ASSERT_EQ(res.size(), 12u);
  int verified = 0;
  for (const auto& [k, v] : res) verified += v == "verified" ? 1 : 0;
  EXPECT_EQ(verified, 10);
  EXPECT_EQ(gpu_overlaps(events), std::vector<std::string>{});
}

TEST_F(BatchLocal, SpendCapStopsSubmittingLetsRunningFinishAndSaysSo) {
  std::string m = "repo\n";
  for (int i = 0; i < 6; ++i) m += "https://example.org/lab/paid" + std::to_string(i) + "-usd=0.3.git\n";
  tmp.write("m.csv", m);
  const auto r = run_process(batch("--gpus 0 --max-usd 0.5"));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stopped: spend cap: max_usd 0.50 reached (0.60 spent)"));
  const auto summary = read_json_file(out() / "summary.json");
  int ran = 0, held = 0;
  for (const auto& row : summary["rows"]) {
    if (row["result"] == "verified") ++ran;
    if (row["result"] == "not_started") {
      ++held;
      EXPECT_EQ(row["detail"], "not started: spend cap");
    }
  }
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(held, 4);
  EXPECT_NEAR(summary["totals"]["usd"].get<double>(), 0.6, 1e-6);
  EXPECT_EQ(summary["totals"]["tokens"], 6000);
}

TEST_F(BatchLocal, AJobWaitingToRetryWhenTheCapIsReachedEndsAndTheBatchWithIt) {
  // The attack: the cap stops the batch while a job's OOM-killed attempt waits for its retry. That
  // retry may not be submitted (the cap), and the job must not wait for it forever either.
  tmp.write("m.csv", "repo\nhttps://example.org/lab/paid-usd=0.6.git\nhttps://example.org/lab/slow-oom-once.git\n");
  const auto r = run_process("timeout 60 env " + batch("--gpus 0,1 --max-usd 0.5"));
  ASSERT_NE(r.exit_code, 124) << "the batch waited forever for a retry the cap forbids";
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const auto res = results(out());
  EXPECT_EQ(res.count("paid-usd-0.6") ? res.at("paid-usd-0.6") : "", "verified") << r.out;
  ASSERT_EQ(res.count("slow-oom-once"), 1u) << r.out;
  EXPECT_EQ(res.at("slow-oom-once"), "error");
  EXPECT_EQ(invocations(out() / "runs" / "slow-oom-once"), 1) << "its retry was not started";
  const auto summary = read_json_file(out() / "summary.json");
  for (const auto& row : summary["rows"]) {
    if (row["key"] == "slow-oom-once") {
      EXPECT_THAT(row["detail"].get<std::string>(), HasSubstr("not retried: spend cap"));
    }
  }
}

TEST_F(BatchLocal, ACancelledJobIsReportedCancelledNotLost) {
  tmp.write("m.csv", "repo\nhttps://example.org/lab/slow.git\nhttps://example.org/lab/quick.git\n");
  const auto launched = run_process("(R2R_FAKE_RUN_SLEEP=30 " + batch("--gpus 0,1 --json") + " > '" +
                                    (tmp.path() / "out.log").string() + "' 2>&1 & echo $!)");
  const pid_t pid = std::atoi(launched.out.c_str());
  const fs::path job = out() / "jobs" / "slow" / "a1";
  for (int i = 0; i < 200 && !(fs::exists(job / "started") && fs::exists(out() / "jobs/quick/a1/started")); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(job / "started"));
  ASSERT_TRUE(fs::exists(out() / "jobs/quick/a1/started"));
  const auto c =
      run_process("R2R_PLUGIN_PATH= '" + std::string(R2R_TEST_REPO2ROCM) + "' --plugin-path '" + plugin_dir().string() +
                  "' plugins call r2r.scheduler.local cancel '{\"id\": \"local:" + job.string() +
                  "\"}' --config '{\"gpus\": [\"0\"]}'");
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_THAT(c.out, HasSubstr("\"cancelled\": true"));
  // quick also sleeps 30 s; cancel it too so the batch ends.
  run_process("R2R_PLUGIN_PATH= '" + std::string(R2R_TEST_REPO2ROCM) + "' --plugin-path '" + plugin_dir().string() +
              "' plugins call r2r.scheduler.local cancel '{\"id\": \"local:" + (out() / "jobs/quick/a1").string() +
              "\"}' --config '{\"gpus\": [\"0\"]}'");
  // The batch is not this process's child: poll for its end.
  for (int i = 0; i < 200 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_NE(::kill(pid, 0), 0) << "the batch did not end after its jobs were cancelled";
  const auto res = results(out());
  EXPECT_EQ(res.count("slow") ? res.at("slow") : "", "cancelled");
  EXPECT_EQ(res.count("quick") ? res.at("quick") : "", "cancelled");
}

TEST_F(BatchLocal, UsageErrorsSayWhatToDo) {
  auto r = run_process(batch("--resume"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("holds no batch.json"));
  r = run_process(batch("--gpus 0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_process(batch("--gpus 0"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("pass --resume"));
  r = run_process(batch("--gpus 0,0"));
  EXPECT_NE(r.exit_code, 0);
  r = run_process(env + batch_command("'" + (tmp.path() / "nope.csv").string() + "' --out '" +
                                      (tmp.path() / "c").string() + "' --gpus 0"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot read the manifest"));
  r = run_process(
      batch_command("'" + (tmp.path() / "m.csv").string() + "' --emit k8s '" + (tmp.path() / "k8s").string() + "'"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(tmp.path() / "k8s" / "README.md"));
  EXPECT_TRUE(fs::exists(tmp.path() / "k8s" / "r2r-repo0-c0ffee0.job.json"));
}

}  // namespace
