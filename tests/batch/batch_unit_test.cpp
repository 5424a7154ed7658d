// SPDX-License-Identifier: MIT
// r2r::batch pieces on their own: manifests, the caps, what is retried, the summary and the
// Kubernetes Job manifests against the Job schema; the Slurm output parsers; the job wrapper the
// local pool writes; and the resume of a batch whose batch.json is older than its jobs.
#include "../unit/test_support.hpp"
#include "batch_state.hpp"
#include "engine.hpp"
#include "job_dir.hpp"
#include "k8s_jobs.hpp"
#include "manifest.hpp"
#include "slurm_cli.hpp"
#include "summary.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

namespace {
using namespace r2r::batch;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

job_record job_at(const std::string& key, const std::string& state, int attempt) {
  job_record j;
  j.entry.key = key;
  j.state = state;
  j.attempt = attempt;
  j.scheduler_id = "local:old";
  return j;
}

TEST(BatchResume, AttemptDirectoriesNewerThanTheCheckpointAreResubmittedNotStartedAgain) {
  r2r::test::temp_dir tmp;
  const fs::path out = tmp.path();
  for (const char* d : {"jobs/fresh/a1", "jobs/retried/a1", "jobs/retried/a2", "jobs/current/a1", "jobs/done/a1",
                        "jobs/done/a2", "jobs/odd/a1x", "jobs/odd/b2", "jobs/odd/a"})
    fs::create_directories(out / d);
  batch_state s;
  s.jobs = {job_at("fresh", "pending", 0),     job_at("retried", "submitted", 1), job_at("current", "submitted", 1),
            job_at("done", "done", 1),         job_at("odd", "pending", 0),       job_at("never", "pending", 0),
            job_at("capped", "not_started", 0)};
  const auto changed = reconcile_attempts(out, s);
  EXPECT_EQ(changed, (std::vector<std::string>{"fresh", "retried"}));
  // The checkpoint said "pending" but attempt 1 was handed to the scheduler: submit it again (the
  // scheduler adopts what runs or ran there) instead of counting a new attempt.
  EXPECT_EQ(s.jobs[0].state, "submitting");
  EXPECT_EQ(s.jobs[0].attempt, 1);
  EXPECT_EQ(s.jobs[0].state_dir, (out / "jobs/fresh/a1").string());
  EXPECT_EQ(s.jobs[0].scheduler_id, "");
  EXPECT_EQ(s.jobs[1].attempt, 2);
  EXPECT_EQ(s.jobs[1].state_dir, (out / "jobs/retried/a2").string());
  EXPECT_EQ(s.jobs[2].state, "submitted") << "nothing newer: asked about as it was";
  EXPECT_EQ(s.jobs[2].scheduler_id, "local:old");
  EXPECT_EQ(s.jobs[3].state, "done") << "a finished job is never reopened";
  EXPECT_EQ(s.jobs[4].state, "pending") << "a1x, b2 and a are not attempt directories";
  EXPECT_EQ(s.jobs[5].state, "pending");
  EXPECT_EQ(s.jobs[6].state, "not_started");
}

namespace sched = r2r::plugins::scheduler;

/// Runs job.sh as the local pool does (the lock taken, fd 9) or not; PATH empty, so the wrapper
/// can use no external command. Returns the wrapper's exit status.
int run_wrapper(const fs::path& dir, bool hand_over_lock) {
  const std::string sh = "cd / && PATH= /bin/sh '" + (dir / "job.sh").string() + "'";
  if (!hand_over_lock) return WEXITSTATUS(std::system(("exec 9>&-; " + sh).c_str()));
  const int lock = sched::try_lock(dir);
  EXPECT_GE(lock, 0);
  ::fcntl(lock, F_SETFD, 0);  // try_lock's fd is close-on-exec; the shell below hands it over as fd 9
  const int rc = std::system(("exec 9>&" + std::to_string(lock) + "; " + sh).c_str());
  ::close(lock);
  return WEXITSTATUS(rc);
}

TEST(LocalWrapper, RunsWithNoExternalCommandOfItsOwnAndOnlyUnderTheHandedOverLock) {
  r2r::test::temp_dir tmp;
  const fs::path dir = tmp.path() / "a1";
  sched::wrapper_spec spec;
  spec.state_dir = dir;
  spec.argv = {"/bin/sh", "-c", "echo ran on {gpu} >> \"$0\"", (tmp.path() / "ran").string()};
  spec.gpu_assignment = "R2R_GPU='2'";
  spec.lock_inherited = true;
  spec.started_at = 1733100000;
  sched::write_wrapper(spec);
  // The attack: job.sh started by hand (or by a second scheduler) without the lock: it must refuse
  // before it records or runs anything.
  EXPECT_EQ(run_wrapper(dir, false), 75);
  EXPECT_FALSE(fs::exists(dir / "started"));
  EXPECT_FALSE(fs::exists(tmp.path() / "ran"));
  // Started as the pool starts it: runs once, records started and exit with builtins only.
  EXPECT_EQ(run_wrapper(dir, true), 0);
  EXPECT_EQ(sched::read_small(tmp.path() / "ran"), "ran on 2");
  EXPECT_THAT(sched::read_small(dir / "started"), ::testing::EndsWith(" 1733100000"));
  EXPECT_EQ(sched::read_small(dir / "exit"), "0");
  const auto f = sched::probe(dir);
  EXPECT_TRUE(f.started);
  EXPECT_EQ(f.exit_status, 0);
  EXPECT_FALSE(f.lock_held);
  // Finished: started again it does not run the command a second time.
  EXPECT_EQ(run_wrapper(dir, true), 0);
  EXPECT_EQ(sched::read_small(tmp.path() / "ran"), "ran on 2");
}

TEST(BatchManifest, ResearchBenchCsvWorksAsIs) {
  const auto m = parse_manifest(
      "repo,commit,paper,venue,stars\n"
      "https://github.com/org/fast-attn,0123456789abcdef0123,\"Fast, exact attention\",ICML,120\n"
      "https://github.com/org/fast-attn,fedcba9876543210,,ICML,120\n"
      "\n"
      "https://github.com/other/ssm.git,,Selective SSMs,NeurIPS,9\n",
      "csv");
  ASSERT_TRUE(m.has_value()) << m.error().message;
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ((*m)[0].repo, "https://github.com/org/fast-attn");
  EXPECT_EQ((*m)[0].commit, "0123456789abcdef0123");
  EXPECT_EQ((*m)[0].paper, "Fast, exact attention");
  EXPECT_EQ((*m)[0].extra["venue"], "ICML");
  EXPECT_EQ((*m)[0].key, "fast-attn-0123456789ab");
  EXPECT_EQ((*m)[1].key, "fast-attn-fedcba987654");
  EXPECT_EQ((*m)[2].key, "ssm");
  EXPECT_EQ((*m)[2].line, 5);
}

TEST(BatchManifest, JsonlWithModeArchTagsAndRepeatedKeys) {
  const auto m = parse_manifest(
      "{\"url\": \"https://x/a\", \"mode\": 0, \"arch\": \"gfx942\", \"tags\": [\"vision\"]}\n"
      "{\"url\": \"https://x/a\", \"tags\": \"nlp;small\"}\n",
      "jsonl");
  ASSERT_TRUE(m.has_value()) << m.error().message;
  EXPECT_EQ((*m)[0].mode, "0");
  EXPECT_EQ((*m)[0].arch, "gfx942");
  EXPECT_EQ((*m)[1].tags, (std::vector<std::string>{"nlp", "small"}));
  EXPECT_EQ((*m)[0].key, "a");
  EXPECT_EQ((*m)[1].key, "a-2");
}

TEST(BatchManifest, BadManifestsSayWhatWasExpected) {
  auto m = parse_manifest("name,commit\nfoo,abc\n", "csv");
  ASSERT_FALSE(m.has_value());
  EXPECT_THAT(m.error().message, HasSubstr("`repo`"));
  m = parse_manifest("repo,commit\nhttps://x/a,abc,extra\n", "csv");
  ASSERT_FALSE(m.has_value());
  EXPECT_THAT(m.error().message, HasSubstr("line 2"));
  m = parse_manifest("{\"repo\": \"x\", \"mode\": 7}\n", "jsonl");
  ASSERT_FALSE(m.has_value());
  EXPECT_THAT(m.error().message, HasSubstr("mode must be 0, 1 or 2"));
  m = parse_manifest("repo,commit\nhttps://x/a,abc; rm -rf /\n", "csv");
  ASSERT_FALSE(m.has_value()) << "a commit with spaces or quotes never reaches a command line";
  m = parse_manifest("not json\n", "jsonl");
  ASSERT_FALSE(m.has_value());
  m = parse_manifest("repo\n", "csv");
  ASSERT_FALSE(m.has_value());
  EXPECT_THAT(m.error().message, HasSubstr("no repositories"));
  // A base_image that would read as an option of `run`, or carries spaces, never reaches argv.
  m = parse_manifest("repo,base_image\nhttps://x/a,--pipeline=/tmp/evil.json\n", "csv");
  ASSERT_FALSE(m.has_value());
  EXPECT_THAT(m.error().message, HasSubstr("base_image must be an image reference"));
  m = parse_manifest("{\"repo\": \"x\", \"base_image\": 3}\n", "jsonl");
  ASSERT_FALSE(m.has_value());
}

TEST(BatchManifest, BaseImageBecomesTheRunsBaseImage) {
  const auto m = parse_manifest("repo,base_image\nhttps://x/a, local/base:py \nhttps://x/b,\n", "csv");
  ASSERT_TRUE(m.has_value()) << m.error().message;
  engine_options o;
  o.runner = {"repo2rocm"};
  job_record a, b;
  a.entry = (*m)[0];
  b.entry = (*m)[1];
  EXPECT_THAT(job_argv(o, a), ::testing::ElementsAre("repo2rocm", "run", "https://x/a", "--run-dir", "", "--json",
                                                     "--gpu", "{gpu}", "--mode", "1", "--base-image", "local/base:py"));
  EXPECT_THAT(job_argv(o, b), ::testing::Not(::testing::Contains("--base-image")));
}

TEST(BatchManifest, KeysCannotEscapeTheRunsDirectory) {
  const auto m = parse_manifest("repo\n../../etc\n/abs/path/..\nhttps://x/.hidden\n", "csv");
  ASSERT_TRUE(m.has_value());
  for (const auto& e : *m) {
    EXPECT_EQ(e.key.find('/'), std::string::npos) << e.key;
    EXPECT_NE(e.key.front(), '.') << e.key;
  }
}

TEST(BatchCaps, EachCapStopsAtItsLimitAndNotBefore) {
  caps c;
  c.max_usd = 1.0;
  c.max_tokens = 5000;
  c.max_gpu_hours = 2;
  EXPECT_EQ(cap_reached(c, spend{4999, 0.99, 1.9}), "");
  EXPECT_THAT(cap_reached(c, spend{0, 1.0, 0}), HasSubstr("max_usd 1.00 reached"));
  EXPECT_THAT(cap_reached(c, spend{5000, 0, 0}), HasSubstr("max_tokens 5000 reached"));
  EXPECT_THAT(cap_reached(c, spend{0, 0, 2.5}), HasSubstr("max_gpu_hours"));
  EXPECT_EQ(cap_reached(caps{}, spend{1 << 30, 1e9, 1e9}), "") << "no cap, no stop";
}

TEST(BatchRetry, AVerdictIsNeverRetriedInfrastructureFailuresAre) {
  run_outcome verdict;
  verdict.has_verdict = true;
  verdict.outcome = "not_verified";
  verdict.exit_code = 3;
  std::string why;
  // The attack: a not_verified run retried until it passes by chance. It must be final.
  EXPECT_FALSE(infrastructure_failure("failed", 3, verdict, why));
  verdict.outcome = "error";
  verdict.failed_stage = "port";
  EXPECT_FALSE(infrastructure_failure("failed", 1, verdict, why)) << "a stage's own failure is the run's result";
  run_outcome none;
  EXPECT_TRUE(infrastructure_failure("failed", 137, none, why));
  EXPECT_THAT(why, HasSubstr("signal 9"));
  EXPECT_TRUE(infrastructure_failure("lost", std::nullopt, none, why));
  EXPECT_TRUE(infrastructure_failure("failed", 1, none, why)) << "ended without a verdict";
  run_outcome engine_down;
  engine_down.has_verdict = true;
  engine_down.outcome = "error";
  engine_down.failed_stage = "environment";
  engine_down.message = "no sandbox answered (docker: connection refused)";
  EXPECT_TRUE(infrastructure_failure("failed", 1, engine_down, why));
  EXPECT_THAT(why, HasSubstr("engine was down"));
}

TEST(BatchSummary, TotalsInThePapersForm) {
  std::vector<summary_row> rows(5);
  rows[0].mode = "0", rows[0].result = "baseline_ran";
  rows[1].mode = "0", rows[1].result = "baseline_failed";
  rows[2].mode = "1", rows[2].result = "verified", rows[2].pfs = 80.0, rows[2].tokens = 1000, rows[2].usd = 0.5;
  rows[3].mode = "1", rows[3].result = "not_verified", rows[3].pfs = 70.0;
  rows[4].mode = "1", rows[4].result = "not_started", rows[4].detail = "not started: spend cap";
  const auto s = build_summary(rows, "spend cap: max_usd 0.50 reached (0.50 spent)", spend{1000, 0.5, 0.1});
  EXPECT_EQ(s["headline"], "Mode 0 1/2 · Mode 1 1/3 · PFS mean 75.0");
  EXPECT_EQ(s["totals"]["by_result"]["not_started"], 1);
  const std::string html = summary_html(s);
  EXPECT_THAT(html, HasSubstr("<svg"));
  EXPECT_THAT(html, HasSubstr("Stopped:"));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg")) << "no external resource";
  const std::string csv = summary_csv(s);
  EXPECT_THAT(csv, HasSubstr("not_started,not started: spend cap"));
}

TEST(BatchSummary, HtmlEscapesWhatRepositoriesControl) {
  std::vector<summary_row> rows(1);
  rows[0].key = "x";
  rows[0].repo = "https://x/<script>alert(1)</script>";
  rows[0].result = "error";
  rows[0].detail = "\"><img src=x onerror=alert(1)>";
  const std::string html = summary_html(build_summary(rows, "", {}));
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
}

TEST(BatchK8s, EmittedJobsValidateAgainstTheJobSchema) {
  const auto m = parse_manifest("repo,commit\nhttps://github.com/Org/My_Repo.git,abcdef1234567890\n", "csv");
  ASSERT_TRUE(m.has_value());
  k8s_options o;
  o.arch = "gfx942";
  const auto job = k8s_job(m->front(), o);
  EXPECT_EQ(check_k8s_job(job), std::vector<std::string>{});
  EXPECT_EQ(job["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["amd.com/gpu"], 1);
  EXPECT_EQ(job["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"], "repo2rocm-runs");
  EXPECT_EQ(job["metadata"]["name"], "r2r-my-repo-abcdef123456");
  const std::string long_key(100, 'a');
  EXPECT_LE(k8s_name(long_key).size(), 63u);
  EXPECT_NE(k8s_name(long_key + "b"), k8s_name(long_key + "c"));
}

TEST(BatchK8s, TheSchemaRejectsJobsTheApiServerWould) {
  const auto m = parse_manifest("repo\nhttps://x/a\n", "csv");
  ASSERT_TRUE(m.has_value());
  const auto good = k8s_job(m->front(), {});
  auto bad = good;
  bad["spec"]["template"]["spec"]["restartPolicy"] = "Always";  // not allowed for a Job's pods
  EXPECT_FALSE(check_k8s_job(bad).empty());
  bad = good;
  bad["spec"]["template"]["spec"].erase("containers");
  EXPECT_FALSE(check_k8s_job(bad).empty());
  bad = good;
  bad["metadata"]["name"] = "Upper_Case";
  EXPECT_FALSE(check_k8s_job(bad).empty());
  bad = good;
  bad["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["amd.com/gpu"] = "one";
  EXPECT_FALSE(check_k8s_job(bad).empty());
  bad = good;
  bad["spec"]["tempalte"] = good["spec"]["template"];
  EXPECT_FALSE(check_k8s_job(bad).empty()) << "a misspelt field is an error, as the API server reports it";
  bad = good;
  bad["kind"] = "Pod";
  EXPECT_FALSE(check_k8s_job(bad).empty());
  // And the defence in emit: a claim name the API would reject stops the emission.
  k8s_options o;
  o.pvc = "Bad Claim";
  const auto written = emit_k8s(*m, o, std::filesystem::temp_directory_path() / "r2r-k8s-bad-claim");
  ASSERT_FALSE(written.has_value());
  EXPECT_THAT(written.error().message, HasSubstr("not a valid Kubernetes Job"));
}

using r2r::plugins::scheduler::parse_sbatch_id;
using r2r::plugins::scheduler::parse_scontrol_state;
using r2r::plugins::scheduler::parse_sinfo_gpus;
using r2r::plugins::scheduler::parse_squeue_json;

TEST(SlurmParsers, SqueueJsonOldAndNewStateShapes) {
  const auto s = parse_squeue_json(
      R"({"meta":{},"jobs":[{"job_id":12,"job_state":"RUNNING"},{"job_id":13,"job_state":["PENDING"]}]})");
  EXPECT_EQ(s.at("12"), "RUNNING");
  EXPECT_EQ(s.at("13"), "PENDING");
  EXPECT_TRUE(parse_squeue_json("slurm_load_jobs error: Unable to contact slurm controller").empty());
}

TEST(SlurmParsers, ScontrolSbatchSinfo) {
  EXPECT_EQ(parse_scontrol_state("JobId=7 JobName=r2r-a UserId=root(0) JobState=CANCELLED Reason=None"),
            std::optional<std::string>("CANCELLED"));
  EXPECT_EQ(parse_scontrol_state("slurm_load_jobs error: Invalid job id specified"), std::nullopt);
  EXPECT_EQ(parse_sbatch_id("42\n"), "42");
  EXPECT_EQ(parse_sbatch_id("43;cluster\n"), "43");
  EXPECT_EQ(parse_sbatch_id("sbatch: error: Batch job submission failed\n"), "");
  EXPECT_EQ(parse_sinfo_gpus("n1 gpu:2\nn2 gpu:2(S:0)\nn3 (null)\nn1 gpu:2\n"), 4);
}

}  // namespace
