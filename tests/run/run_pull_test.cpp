// SPDX-License-Identifier: MIT
// `repo2rocm run` pulls what the plan chose: a base image pushed to a test registry
// (plugins/sandbox/docker/test/test_registry.hpp: Debian's docker-registry on loopback inside this process's own
// network namespace) and then deleted from a private dockerd is pulled by the environment stage, its progress shown as
// events, and its digest pinned in plan.json and the bundle's Dockerfile;
// `--no-pull` fails fast with the message the run gave before pulls existed. Its own executable:
// the namespace changes the whole process.
#include "../../plugins/sandbox/docker/test/test_registry.hpp"
#include "private_dockerd.hpp"
#include "run_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>

namespace {

using nlohmann::json;
using r2r::test::parse_events;
using r2r::test::read_text;
using r2r::test::run_process;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr const char* base_ref = "127.0.0.1:5000/r2r/run-base:py";

// The stand-ins of run_docker_test: the workload "runs" and prints a loss.
const std::map<std::string, std::string> python_tools = {
    {"pip", "echo \"pip $*\" >> /workspace/r2r-steps.log\n"},
    {"python", "echo \"python $*\" >> /workspace/r2r-steps.log\necho 'final loss: 0.0451'\n"},
};

struct pull_world {
  std::string why;
  r2r::test::temp_dir tmp;
  std::unique_ptr<r2r::plugins::sandbox::docker::testing::test_registry> registry;
  std::unique_ptr<r2r::test::private_dockerd> dockerd;
  std::string pinned;  // 127.0.0.1:5000/r2r/run-base@sha256:… as the registry stored it
  fs::path repo;

  pull_world() {
    if (why = r2r::test::private_dockerd_blocker(); !why.empty()) return;  // the namespace needs root too
    registry = std::make_unique<r2r::plugins::sandbox::docker::testing::test_registry>(tmp.path() / "registry");
    if (!registry->why().empty()) {
      why = registry->why();
      return;
    }
    dockerd = std::make_unique<r2r::test::private_dockerd>(tmp.path() / "dockerd");
    if (!dockerd->ready()) {
      why = "dockerd could not start here:\n" + dockerd->log();
      return;
    }
    dockerd->import_base(base_ref, python_tools);
    const auto pushed = dockerd->docker(std::string("push ") + base_ref);
    if (pushed.exit_code != 0) {
      why = "docker push to the test registry failed: " + pushed.out + pushed.err;
      return;
    }
    pinned = dockerd->docker(std::string("inspect --format '{{index .RepoDigests 0}}' ") + base_ref).out;
    while (!pinned.empty() && (pinned.back() == '\n' || pinned.back() == '\r')) pinned.pop_back();
    repo = tmp.path() / "fused-rmsnorm";
    r2r::test::make_example_repo("fused-rmsnorm", repo);
  }
};

class RunPull : public ::testing::Test {
 protected:
  static pull_world& world() {
    static pull_world w;
    return w;
  }
  void SetUp() override {
    if (!world().why.empty()) GTEST_SKIP() << world().why;
    ASSERT_THAT(world().pinned, HasSubstr("127.0.0.1:5000/r2r/run-base@sha256:"));
    // The engine lacks the base: only the registry has it.
    (void)world().dockerd->docker(std::string("rmi -f ") + base_ref);
    ASSERT_NE(world().dockerd->docker(std::string("image inspect ") + base_ref).exit_code, 0);
  }
  r2r::test::process_result run(const fs::path& dir, const std::string& extra) {
    return run_process(r2r::test::run_command(world().tmp.path(),
                                              "'" + world().repo.string() + "' --mode 1 --json --base-image " +
                                                  base_ref + " --run-dir '" + dir.string() + "'" + extra,
                                              world().dockerd->socket()) +
                       " 2>&1");
  }
};

TEST_F(RunPull, PullsTheMissingBaseWithProgressAndPinsItsDigestInTheBundle) {
  const fs::path dir = world().tmp.path() / "pulled";
  const auto r = run(dir, "");
  EXPECT_EQ(r.exit_code, 4) << r.out;  // no AMD GPU here: no_device
  std::map<std::string, json> finished;
  std::vector<std::string> environment_updates;
  for (const auto& e : parse_events(r.out)) {
    if (e["event"] == "stage_finished") finished[e["stage"]] = e;
    if (e["event"] == "stage_progress" && e["stage"] == "environment") environment_updates.push_back(e.dump());
  }
  const json env = finished["environment"];
  ASSERT_EQ(env["status"], "ok") << env.dump() << r.out;
  EXPECT_TRUE(env["results"]["pulled"].get<bool>());
  EXPECT_EQ(env["results"]["base_digest"], world().pinned);
  // Progress per layer, as events.
  bool layer_event = false;
  for (const auto& u : environment_updates)
    if (u.find("pull " + std::string(base_ref) + ": layer ") != std::string::npos) layer_event = true;
  EXPECT_TRUE(layer_event) << ::testing::PrintToString(environment_updates);

  // The plan record and every Dockerfile name the digest, so a rebuild gets the same bytes.
  EXPECT_EQ(json::parse(read_text(dir / "plan.json"))["base_image"]["pinned"], world().pinned);
  EXPECT_THAT(read_text(dir / "Dockerfile"), HasSubstr("\nFROM " + world().pinned + "\n"));
  ASSERT_EQ(finished["bundle"]["status"], "ok") << finished["bundle"].dump();
  EXPECT_THAT(read_text(dir / "bundle/Dockerfile"), HasSubstr("\nFROM " + world().pinned + "\n"));
  EXPECT_EQ(json::parse(read_text(dir / "bundle/plan.json"))["base_image"]["pinned"], world().pinned);
  // The pinned bundle still verifies: its Dockerfile is the rendering of its plan.json.
  const auto bin = r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm";
  const auto checked = run_process(bin.string() + " verify '" + (dir / "bundle").string() + "' --state-dir '" +
                                   (world().tmp.path() / "state").string() + "'");
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
}

TEST_F(RunPull, NoPullFailsFastWithTheCurrentMessageAndPullsNothing) {
  const fs::path dir = world().tmp.path() / "no-pull";
  const auto start = std::chrono::steady_clock::now();
  const auto r = run(dir, " --no-pull --until environment");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("is not in the docker image store and images are never pulled"));
  EXPECT_THAT(r.out, HasSubstr("pull it first (`docker pull " + std::string(base_ref) + "`)"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(120));
  EXPECT_NE(world().dockerd->docker(std::string("image inspect ") + base_ref).exit_code, 0) << "--no-pull pulled";
}

}  // namespace
