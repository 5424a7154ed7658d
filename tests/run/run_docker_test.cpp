// SPDX-License-Identifier: MIT
// Mode 0 of `repo2rocm run` against a real dockerd that this test starts under its temporary
// directory (own data/exec roots and unix socket) and stops by PID. Real PyTorch images cannot be
// pulled here, so the base image is a busybox rootfs whose `pip` and `python` are recording
// stand-ins: the README's commands really run, in order, in a container of the environment image
// the run built on that base. A second base without `python` shows a failing baseline step.
// Skips, saying why, only when dockerd cannot start here.
#include "private_dockerd.hpp"
#include "run_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <thread>

namespace {

using nlohmann::json;
using r2r::test::parse_events;
using r2r::test::read_text;
using r2r::test::run_process;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

class RunMode0 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "dockerd needs root here; run the suite as root (CI does)";
    if (run_process("command -v dockerd && command -v docker").exit_code != 0)
      GTEST_SKIP() << "dockerd/docker not installed (scripts/bootstrap.sh installs docker.io)";
    dockerd = std::make_unique<r2r::test::private_dockerd>(tmp.path());
    if (!dockerd->ready()) GTEST_SKIP() << "dockerd could not start here:\n" << dockerd->log();
  }
  r2r::test::temp_dir tmp;
  std::unique_ptr<r2r::test::private_dockerd> dockerd;
};

// The stand-ins append to a log in the workspace, so the host sees what ran, where, and in which order.
const std::map<std::string, std::string> python_tools = {
    {"pip", "echo \"pip $* (in $(pwd))\" >> /workspace/r2r-steps.log\n"},
    {"python",
     "echo \"python $* (PYTORCH_ROCM_ARCH=$PYTORCH_ROCM_ARCH)\" >> /workspace/r2r-steps.log\n"
     "echo 'final loss: 0.0451'\n"},
};

TEST_F(RunMode0, RunsTheReadmeCommandsInOrderInTheBuiltImageAndEndsWithNoDevice) {
  dockerd->import_base("local/r2r-run-base:py", python_tools);
  const fs::path repo = tmp.path() / "fused-rmsnorm";
  r2r::test::make_example_repo("fused-rmsnorm", repo);
  const fs::path dir = tmp.path() / "mode0";
  const auto r = run_process(r2r::test::run_command(tmp.path(),
                                                    "'" + repo.string() +
                                                        "' --mode 0 --arch gfx942 --json --base-image "
                                                        "local/r2r-run-base:py --run-dir '" +
                                                        dir.string() + "'",
                                                    dockerd->socket()) +
                             " 2>&1");
  // No AMD GPU on this host: the README ran, and the baseline says nothing about ROCm: exit 4.
  EXPECT_EQ(r.exit_code, 4) << r.out;
  const auto events = parse_events(r.out);
  ASSERT_FALSE(events.empty());
  std::map<std::string, json> finished;
  for (const auto& e : events) {
    if (e["event"] == "stage_finished") finished[e["stage"]] = e;
    EXPECT_NE(e.value("stage", ""), "port") << "mode 0 does not port";
  }
  EXPECT_EQ(finished["environment"]["status"], "ok") << finished["environment"].dump();
  EXPECT_EQ(finished["environment"]["results"]["engine"], "docker");
  EXPECT_EQ(finished["environment"]["results"]["base_image"], "local/r2r-run-base:py");
  EXPECT_EQ(finished["execute"]["status"], "ok");
  EXPECT_EQ(finished["execute"]["message"], "mode 0: all 3 steps ran");
  EXPECT_EQ(events.back()["event"], "verdict");
  EXPECT_EQ(events.back()["outcome"], "no_device");
  EXPECT_THAT(events.back()["message"].get<std::string>(), HasSubstr("no ROCm device"));

  // Unmodified, in README order, in the workspace, with the plan's environment from the image.
  EXPECT_EQ(read_text(dir / "workspace" / "r2r-steps.log"),
            "pip install -r requirements.txt (in /workspace)\n"
            "pip install --no-build-isolation -e . (in /workspace)\n"
            "python train.py --steps 200 --seed 0 (PYTORCH_ROCM_ARCH=gfx942)\n");
  const std::string log = read_text(dir / "mode0" / "commands.log");
  EXPECT_THAT(log, HasSubstr("$ python train.py --steps 200 --seed 0    # README.md:"));
  EXPECT_THAT(log, HasSubstr("final loss: 0.0451"));
  const json steps = json::parse(read_text(dir / "mode0" / "steps.json"));
  EXPECT_EQ(steps["ran"], 3);
  EXPECT_TRUE(steps["all_ran"].get<bool>());
  // The source checkout is untouched; the sandbox and its image are gone.
  EXPECT_FALSE(fs::exists(dir / "source" / "r2r-steps.log"));
  EXPECT_EQ(dockerd->docker("ps -aq --filter label=org.repo2rocm.sandbox").out, "");
  EXPECT_EQ(dockerd->docker("images -q --filter label=org.repo2rocm.sandbox").out, "");
}

TEST_F(RunMode0, AFailingReadmeStepIsTheBaselinesFindingExit3) {
  dockerd->import_base("local/r2r-run-base:nopython", {{"pip", "echo \"pip $*\"\n"}});
  const fs::path repo = tmp.path() / "fused-rmsnorm";
  r2r::test::make_example_repo("fused-rmsnorm", repo);
  const fs::path dir = tmp.path() / "fail";
  const auto r = run_process(r2r::test::run_command(tmp.path(),
                                                    "'" + repo.string() +
                                                        "' --mode 0 --json --base-image local/r2r-run-base:nopython " +
                                                        "--run-dir '" + dir.string() + "'",
                                                    dockerd->socket()));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const auto events = parse_events(r.out);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["outcome"], "baseline_failed");
  EXPECT_THAT(events.back()["message"].get<std::string>(),
              HasSubstr("mode 0: step 3/3 failed: python train.py --steps 200 --seed 0 (exit 127"));
  const json steps = json::parse(read_text(dir / "mode0" / "steps.json"));
  EXPECT_EQ(steps["ran"], 2);
  EXPECT_EQ(steps["failed"]["index"], 3);

  // Under --no-pull a missing base image is an actionable environment failure, never a pull
  // (run_pull_test pulls one from a test registry).
  const auto missing = run_process(r2r::test::run_command(
      tmp.path(), "'" + repo.string() + "' --mode 0 --json --no-pull --base-image local/not-here:1",
      dockerd->socket()));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.out, HasSubstr("images are never pulled"));
}

// Mode 1 end to end in the real dockerd: the example is planned, ported (gfx90a build check),
// executed by the playbook policy through the guards in a container of the built environment,
// verified by r2r.verifier.mode1-rocm (no AMD GPU here: no_device, the workload is not trusted), and
// bundled; the bundle verifies and a byte changed afterwards fails `repo2rocm verify`.
TEST_F(RunMode0, ModeOneEndsNoRocmDeviceWithACompleteVerifiableBundle) {
  dockerd->import_base("local/r2r-run-base:py", python_tools);
  const fs::path repo = tmp.path() / "fused-rmsnorm";
  r2r::test::make_example_repo("fused-rmsnorm", repo);
  const fs::path dir = tmp.path() / "mode1";
  const auto r = run_process(r2r::test::run_command(tmp.path(),
                                                    "'" + repo.string() +
                                                        "' --mode 1 --json --base-image local/r2r-run-base:py "
                                                        "--run-dir '" +
                                                        dir.string() + "'",
                                                    dockerd->socket()) +
                             " 2>&1");
  EXPECT_EQ(r.exit_code, 4) << r.out;
  std::map<std::string, json> finished;
  for (const auto& e : parse_events(r.out))
    if (e["event"] == "stage_finished") finished[e["stage"]] = e;
  EXPECT_EQ(finished["port"]["status"], "ok");
  EXPECT_TRUE(finished["port"]["results"]["builds"].contains("gfx90a")) << finished["port"].dump();
  EXPECT_EQ(finished["environment"]["results"]["engine"], "docker");
  EXPECT_EQ(finished["execute"]["status"], "ok") << finished["execute"].dump();
  EXPECT_EQ(finished["verify"]["results"]["verdict"], "no_device");
  // The verdict is given on the image rebuilt from the bundle's Dockerfile, where the workload
  // that exited 0 for the executor exits 0 again.
  EXPECT_EQ(finished["verify"]["results"]["environment"], "rebuilt") << finished["verify"].dump();
  EXPECT_EQ(finished["verify"]["results"]["environment_probe"]["exit_code"], 0) << finished["verify"].dump();
  EXPECT_THAT(finished["verify"]["results"]["environment_image"].get<std::string>(), HasSubstr("sha256:"));
  EXPECT_EQ(finished["bundle"]["status"], "ok") << finished["bundle"].dump();

  // The playbook ran the plan's install steps and the workload in the container; the success
  // guard denied its claim because no verifier had passed.
  const auto turns = parse_events(read_text(dir / "execute/trajectory.jsonl"));
  bool workload_ran = false, claim_denied = false;
  for (const auto& t : turns) {
    const std::string type = t["action"]["type"];
    if (type == "run_workload" && t.contains("observation") && t["observation"]["exit_code"] == 0) workload_ran = true;
    if (type == "claim_success" && t["decision"]["decision"] == "deny") claim_denied = true;
  }
  EXPECT_TRUE(workload_ran) << read_text(dir / "execute/trajectory.jsonl");
  EXPECT_TRUE(claim_denied);
  EXPECT_THAT(read_text(dir / "execute/workspace/r2r-steps.log"), HasSubstr("python train.py --steps 200"));

  const auto bin = r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm";
  // Signed with the host key made under the run's --state-dir.
  const std::string trust = " --state-dir '" + (tmp.path() / "state").string() + "'";
  const auto intact = run_process(bin.string() + " verify '" + (dir / "bundle").string() + "'" + trust);
  EXPECT_EQ(intact.exit_code, 0) << intact.out << intact.err;
  const json report = json::parse(read_text(dir / "bundle/report.json"));
  EXPECT_EQ(report["verdict"], "no_device");
  {
    std::fstream f(dir / "bundle/patch.diff", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.put('#');
  }
  EXPECT_EQ(run_process(bin.string() + " verify '" + (dir / "bundle").string() + "'" + trust).exit_code, 1);
  EXPECT_EQ(dockerd->docker("ps -aq --filter label=org.repo2rocm.sandbox").out, "");
}

}  // namespace
