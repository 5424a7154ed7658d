// SPDX-License-Identifier: MIT
// `repo2rocm run` as a process, without a container engine (the local bubblewrap sandbox takes
// over): usage errors, the run directory after intake/plan/port/environment on the example
// repository, the JSON events, the terminal display, resume, and the honest end of a build that
// has no executor or verifier.
#include "run_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>

namespace {

using nlohmann::json;
using r2r::test::parse_events;
using r2r::test::read_text;
using r2r::test::run_process;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

class RunCli : public ::testing::Test {
 protected:
  r2r::test::temp_dir tmp;
  r2r::test::process_result run(const std::string& args) {
    return run_process(r2r::test::run_command(tmp.path(), args));
  }
};

TEST_F(RunCli, UsageErrorsExit2WithWhatToDo) {
  struct usage_case {
    std::string args;
    std::string says;
  };
  const fs::path repo = tmp.path() / "repo";
  r2r::test::make_example_repo("fused-rmsnorm", repo);
  fs::create_directories(tmp.path() / "full");
  std::ofstream(tmp.path() / "full" / "notes.txt") << "not a run\n";
  const std::vector<usage_case> cases = {
      {"", "run takes exactly one SOURCE"},
      {"a b", "run takes exactly one SOURCE"},
      {"'" + repo.string() + "' --mode 3", "--mode takes 0 (baseline), 1 (functional) or 2"},
      {"'" + repo.string() + "' --mode one", "found 'one'"},
      {"'" + repo.string() + "' --gpu first", "--gpu takes a GPU index"},
      {"'" + repo.string() + "' --arch sm_80", "--arch must be a gfx target"},
      {"'" + repo.string() + "' --out x", "--out is not an option of `run`"},
      {"'" + repo.string() + "' --run-dir '" + (tmp.path() / "full").string() + "'", "holds no earlier run"},
      {"'" + repo.string() + "' --pipeline '" + (tmp.path() / "missing.json").string() + "'", "invalid pipeline"},
      {"'" + (tmp.path() / "nothing-here").string() + "' --run-dir '" + (tmp.path() / "r0").string() + "'", ""},
  };
  for (const auto& c : cases) {
    const auto r = run(c.args);
    if (c.says.empty()) {
      // A source that does not exist is found by intake: exit 2 after the run started, saying why.
      EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
      EXPECT_THAT(r.out, HasSubstr("stage intake failed")) << c.args;
      continue;
    }
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.says)) << c.args;
    EXPECT_TRUE(r.out.empty()) << "a usage error must start no run: " << r.out;
  }
}

TEST_F(RunCli, TheExampleIsPlannedPortedExecutedAndEndsNoRocmDeviceWithAVerifiableBundle) {
  const fs::path repo = tmp.path() / "fused-rmsnorm";
  const std::string sha = r2r::test::make_example_repo("fused-rmsnorm", repo);
  const fs::path dir = tmp.path() / "run1";
  const auto r = run("'" + repo.string() + "' --json --run-dir '" + dir.string() + "'");
  ASSERT_EQ(r.exit_code, 4) << r.out << r.err;  // this machine has no AMD GPU

  for (const char* f : {"run.json", "events.jsonl", "fingerprint.json", "plan.json", "Dockerfile", "repo.tar",
                        "patch.diff", "convert.json", "source/train.py", "workspace/csrc/rmsnorm_kernel.cu",
                        ".r2r/stages/intake.json", ".r2r/stages/plan.json", ".r2r/stages/port.json"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  EXPECT_FALSE(fs::exists(dir / ".r2r/stages/environment.json")) << "environment is not resumable";
  EXPECT_FALSE(fs::exists(dir / "source/.git"));

  // The plan handled the CUDA-only dependency and found the README's metric and workload.
  const json plan = json::parse(read_text(dir / "plan.json"));
  EXPECT_EQ(plan["repository"]["commit"], sha);
  // nvidia-ml-py (NVML) is replaced by the amd-smi bindings; einops, missing from ROCm images, is installed.
  std::string steps;
  for (const auto& step : plan["install_steps"])
    steps += step["kind"].get<std::string>() + ": " + step["command"].get<std::string>() + "\n";
  EXPECT_THAT(steps, HasSubstr("replace: pip install /opt/rocm/share/amd_smi")) << steps;
  EXPECT_THAT(steps, HasSubstr("einops==0.8.0")) << steps;
  EXPECT_THAT(steps, ::testing::Not(HasSubstr("nvidia-ml-py"))) << steps;
  EXPECT_THAT(plan["workload"]["command"].get<std::string>(), HasSubstr("python train.py --steps 200"));
  ASSERT_FALSE(plan["metric"].is_null()) << plan.dump(2);
  EXPECT_EQ(plan["metric"]["name"], "loss");
  EXPECT_DOUBLE_EQ(plan["metric"]["value"].get<double>(), 0.045);

  // The port converted the kernel in the workspace (the source stays CUDA), found the 32-lane mask
  // and build-checked for gfx90a.
  EXPECT_THAT(read_text(dir / "source/csrc/rmsnorm_kernel.cuh"), HasSubstr("cuda_runtime.h"));
  EXPECT_THAT(read_text(dir / "workspace/csrc/rmsnorm_kernel.cuh"), HasSubstr("hip/hip_runtime.h"));
  EXPECT_THAT(read_text(dir / "workspace/csrc/rmsnorm_kernel.cu"), HasSubstr("hipError_t rmsnorm_forward("));
  EXPECT_THAT(read_text(dir / "patch.diff"), HasSubstr("+#include <hip/hip_runtime.h>"));
  const json convert = json::parse(read_text(dir / "convert.json"));
  EXPECT_THAT(convert["hazards"].dump(), HasSubstr("full-mask-32"));
  // The kernel really went through hipcc for gfx90a and compiles there: the idiom port rewrites its
  // full-mask 32-lane `__shfl_down_sync` into HIP's shuffle with width 32, which every HIP version
  // declares (Debian 12's HIP 5.2 has no `_sync` shuffles, so an unported kernel would fail here).
  json kernel_build;
  for (const auto& b : convert["builds"]) {
    if (b.value("arch", "") == "gfx90a" && b.value("file", "") == "csrc/rmsnorm_kernel.cu") kernel_build = b;
  }
  ASSERT_TRUE(kernel_build.is_object()) << convert["builds"].dump(2);
  EXPECT_EQ(kernel_build["status"], "passed") << kernel_build.dump(2);
  const auto ported_kernel = read_text(dir / "workspace/csrc/rmsnorm_kernel.cu");
  EXPECT_THAT(ported_kernel, Not(HasSubstr("__shfl_down_sync"))) << ported_kernel;
  EXPECT_THAT(ported_kernel, HasSubstr("__shfl_down(")) << ported_kernel;

  // Events: well formed, ordered, the same on stdout and in events.jsonl, and an honest end.
  const auto events = parse_events(r.out);
  EXPECT_EQ(events.size(), parse_events(read_text(dir / "events.jsonl")).size());
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front()["event"], "run_started");
  EXPECT_EQ(events.front()["mode"], 1);
  std::vector<std::string> order;
  double t = 0;
  for (const auto& e : events) {
    ASSERT_TRUE(e.contains("t") && e["t"].is_number()) << e.dump();
    EXPECT_GE(e["t"].get<double>(), t);
    t = e["t"].get<double>();
    if (e["event"] == "stage_started") order.push_back("+" + e["stage"].get<std::string>());
    if (e["event"] == "stage_finished") {
      order.push_back(e["status"].get<std::string>() + " " + e["stage"].get<std::string>());
      EXPECT_TRUE(e["seconds"].is_number() && e["results"].is_object()) << e.dump();
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"+intake", "ok intake", "+plan", "ok plan", "+port", "ok port",
                                             "+environment", "ok environment", "+execute", "ok execute", "+verify",
                                             "ok verify", "+bundle", "ok bundle"}));
  const json& verdict = events.back();
  EXPECT_EQ(verdict["event"], "verdict");
  EXPECT_EQ(verdict["outcome"], "no_device");
  EXPECT_EQ(verdict["exit_code"], 4);
  EXPECT_THAT(verdict["message"].get<std::string>(), HasSubstr("no ROCm device"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("\"verified\"")));

  // The executor ran the plan's steps through the guards in the sandbox and recorded every turn.
  const auto trajectory = parse_events(read_text(dir / "execute/trajectory.jsonl"));
  ASSERT_FALSE(trajectory.empty());
  EXPECT_EQ(trajectory.front()["action"]["type"], "run");

  // The bundle is complete and verifies; the verifier, not the executor, gave the verdict.
  for (const char* f : {"Dockerfile", "patch.diff", "commands.log", "plan.json", "trajectory.jsonl", "report.json",
                        "report.html", "MANIFEST.sha256", "repo.tar"})
    EXPECT_TRUE(fs::exists(dir / "bundle" / f)) << f;
  const json report = json::parse(read_text(dir / "bundle/report.json"));
  EXPECT_EQ(report["verdict"], "no_device");
  const auto verify_bin = r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm";
  // Signed with the host key made under the run's --state-dir; another host trusts it through
  // --trusted-key with the public key file.
  const std::string trust = " --state-dir '" + (tmp.path() / "state").string() + "'";
  const auto intact = run_process(verify_bin.string() + " verify '" + (dir / "bundle").string() + "'" + trust);
  EXPECT_EQ(intact.exit_code, 0) << intact.out << intact.err;
  EXPECT_THAT(intact.out, HasSubstr("verdict no_device"));
  // The verifier's raw evidence is in the run directory and the bundle, and verify re-judged it.
  EXPECT_TRUE(fs::is_regular_file(dir / "evidence/r2r.verifier.mode1-rocm/capture.json"));
  EXPECT_TRUE(fs::is_regular_file(dir / "bundle/evidence/r2r.verifier.mode1-rocm/capture.json"));
  EXPECT_THAT(intact.out, HasSubstr("1 verifier capture(s) re-judged by their plugins"));
  const auto by_key = run_process(verify_bin.string() + " verify '" + (dir / "bundle").string() + "' --trusted-key '" +
                                  (tmp.path() / "state/signing/bundle-ed25519.pub").string() + "'");
  EXPECT_EQ(by_key.exit_code, 0) << by_key.out << by_key.err;

  // A bundle edited after the fact fails `repo2rocm verify`.
  { std::ofstream(dir / "bundle/trajectory.jsonl", std::ios::app) << "{}\n"; }
  const auto edited = run_process(verify_bin.string() + " verify '" + (dir / "bundle").string() + "'" + trust);
  EXPECT_EQ(edited.exit_code, 1) << edited.out << edited.err;
  EXPECT_THAT(edited.out + edited.err, HasSubstr("trajectory.jsonl"));
}

TEST_F(RunCli, ResumeSkipsCompletedStagesAndRefusesOtherArguments) {
  const fs::path repo = tmp.path() / "fused-rmsnorm";
  r2r::test::make_example_repo("fused-rmsnorm", repo);
  const fs::path dir = tmp.path() / "run";
  const std::string args = "'" + repo.string() + "' --json --run-dir '" + dir.string() + "'";
  ASSERT_EQ(run(args).exit_code, 4);
  const auto plan_before = fs::last_write_time(dir / "plan.json");
  const auto trajectory_before = read_text(dir / "execute/trajectory.jsonl");

  const auto again = run(args);
  EXPECT_EQ(again.exit_code, 4) << again.err;
  std::map<std::string, std::string> status;
  for (const auto& e : parse_events(again.out)) {
    if (e["event"] == "stage_finished") status[e["stage"]] = e["status"];
  }
  EXPECT_EQ(status["intake"], "resumed");
  EXPECT_EQ(status["plan"], "resumed");
  EXPECT_EQ(status["port"], "resumed");
  EXPECT_EQ(status["environment"], "ok");
  EXPECT_EQ(status["execute"], "ok");  // the executor resumes its own record: no turn runs twice
  EXPECT_EQ(status["verify"], "ok");
  EXPECT_EQ(read_text(dir / "execute/trajectory.jsonl"), trajectory_before);
  EXPECT_EQ(fs::last_write_time(dir / "plan.json"), plan_before);
  // Both runs are in the one event log.
  const auto log = parse_events(read_text(dir / "events.jsonl"));
  EXPECT_EQ(std::count_if(log.begin(), log.end(), [](const json& e) { return e["event"] == "run_started"; }), 2);

  // A damaged output makes its stage, and every later one, run again.
  std::ofstream(dir / "convert.json", std::ios::app) << " ";
  const auto repaired = run(args);
  status.clear();
  for (const auto& e : parse_events(repaired.out)) {
    if (e["event"] == "stage_finished") status[e["stage"]] = e["status"];
  }
  EXPECT_EQ(status["plan"], "resumed");
  EXPECT_EQ(status["port"], "ok");

  const auto other = run("'" + repo.string() + "' --mode 0 --json --run-dir '" + dir.string() + "'");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_THAT(other.out, HasSubstr("holds a run with mode 1"));  // --json: the error is JSON on stdout
}

TEST_F(RunCli, TerminalGetsALiveDisplayNotEvents) {
  if (run_process("command -v script").exit_code != 0) GTEST_SKIP() << "script(1) (bsdutils) is not installed";
  const fs::path repo = tmp.path() / "fused-rmsnorm";
  r2r::test::make_example_repo("fused-rmsnorm", repo);
  const fs::path dir = tmp.path() / "tty";
  const std::string inner =
      r2r::test::run_command(tmp.path(), "'" + repo.string() + "' --run-dir '" + dir.string() + "'");
  // script gives the command a pseudo-terminal for stdin, stdout and stderr; -e returns its status.
  std::ofstream(tmp.path() / "inner.sh") << inner << "\n";
  const auto r = run_process("script -qec 'sh " + (tmp.path() / "inner.sh").string() + "' /dev/null");
  EXPECT_EQ(r.exit_code, 4) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\x1b[2K"));
  for (const char* stage : {"intake", "plan", "port", "environment", "execute", "verify", "bundle"})
    EXPECT_THAT(r.out, HasSubstr(stage));
  EXPECT_THAT(r.out, HasSubstr("no ROCm device"));
  EXPECT_THAT(r.out, HasSubstr("result: "));
  EXPECT_THAT(r.out, HasSubstr("run directory: " + dir.string()));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("\"event\"")));
  // The event log is written in both styles.
  EXPECT_EQ(parse_events(read_text(dir / "events.jsonl")).back()["event"], "verdict");
}

TEST_F(RunCli, CpuCheatFixtureIsNeverVerified) {
  // examples/cpu-cheat prints every success marker and computes on the CPU: whatever stages this
  // build has, its run must not end verified.
  const fs::path repo = tmp.path() / "cpu-cheat";
  r2r::test::make_example_repo("cpu-cheat", repo);
  const auto r = run("'" + repo.string() + "' --json --run-dir '" + (tmp.path() / "cheat").string() + "'");
  EXPECT_NE(r.exit_code, 0) << r.out;
  const auto events = parse_events(r.out);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["event"], "verdict");
  EXPECT_NE(events.back()["outcome"], "verified");
  EXPECT_NE(events.back()["exit_code"], 0);
}

}  // namespace
