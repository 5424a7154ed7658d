// SPDX-License-Identifier: MIT
// Acceptance: the playbook policy (r2r.policy.playbook), with no model anywhere in the pipeline,
// takes a fixture repository with a known missing dependency (einops, imported by train.py and
// absent from requirements.txt) and a known NVIDIA-only wheel (nvidia-cublas-cu12, pulled in by
// the requirements) through to a workload that exits 0, in the real r2r.sandbox.docker against a
// private dockerd this test starts under its temporary directory (own data/exec roots and unix
// socket) and stops by PID. Driven through `repo2rocm execute`, guarded by the in-tree
// cpu_fallback, accelerator_swap and success_claim guards.
//
// Real Python images cannot be pulled here, so the image is a busybox rootfs imported locally
// whose `pip`, `python` and `python3` are shell stand-ins that keep their "site-packages" as marker
// files under /opt/site in the container filesystem (not the workspace), so the state is real
// container state. Contract of the stand-ins:
//   pip install -r FILE     prints pip's "Successfully installed ... nvidia-cublas-cu12-..." line, exit 0
//   pip install PKG...      marks PKG installed, exit 0
//   pip uninstall -y PKG... removes the marks, exit 0
//   python3 -m pip ARGS     is `pip ARGS` (the executor's install action runs `python3 -m pip install`)
//   python train.py         without einops: a ModuleNotFoundError traceback on stderr, exit 1;
//                           with it: "final loss" and whether NVIDIA wheels are still present, exit 0
// Skips, saying why, only when dockerd/docker/busybox are not available or dockerd cannot start.
#include "../run/private_dockerd.hpp"
#include "executor_fixture.hpp"

#include <r2r/core/embedded_schemas.hpp>
#include <r2r/core/json_schema.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

namespace {

using nlohmann::json;
using r2r::test::run_process;
using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace fs = std::filesystem;

/// dockerd with all its state under `dir` and a private socket; stopped by PID in the destructor.
/// Never touches a system-wide engine. ready() is false when it did not answer within 30 s.

// The stand-ins (contract in the header comment). Every call is also logged to /opt/site/calls.log.
const char* const pip_tool = R"sh(echo "pip $*" >> /opt/site/calls.log
case "$1" in
  install)
    shift
    if [ "$1" = "-r" ]; then
      echo "Collecting numpy (from -r $2 (line 1))"
      echo "Collecting nvidia-cublas-cu12 (from numpy)"
      touch /opt/site/numpy /opt/site/nvidia-cublas-cu12
      echo "Successfully installed numpy-1.26.4 nvidia-cublas-cu12-12.1.3.1"
      exit 0
    fi
    for p in "$@"; do touch "/opt/site/$p"; echo "Successfully installed $p-0.8.0"; done ;;
  uninstall)
    shift
    for p in "$@"; do
      [ "$p" = "-y" ] && continue
      rm -f "/opt/site/$p"
      echo "Successfully uninstalled $p-12.1.3.1"
    done ;;
  *) echo "pip stand-in: unsupported: $*" >&2; exit 2 ;;
esac
)sh";

const char* const python_tool = R"sh(if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then shift 2; exec pip "$@"; fi
echo "python $*" >> /opt/site/calls.log
if [ ! -e /opt/site/einops ]; then
  echo "Traceback (most recent call last):" >&2
  echo "  File \"/workspace/train.py\", line 1, in <module>" >&2
  echo "    import einops" >&2
  echo "ModuleNotFoundError: No module named 'einops'" >&2
  exit 1
fi
if [ -e /opt/site/nvidia-cublas-cu12 ]; then echo "nvidia wheels: present"; else echo "nvidia wheels: none"; fi
echo "final loss: 0.0451"
)sh";

constexpr const char* image_tag = "local/r2r-playbook-e2e:py";

/// A plan.json for the fixture as `repo2rocm plan` would write it (valid against plan.schema.json):
/// one install step (the requirements) and the workload `python train.py`.
json fixture_plan() {
  return {{"schema_version", 1},
          {"repository",
           {{"source", "https://example.org/org/einops-fixture"},
            {"url", "https://example.org/org/einops-fixture"},
            {"commit", std::string(40, 'a')}}},
          {"arch", "gfx942"},
          {"base_image", {{"ref", image_tag}, {"source", "ranker"}, {"reasons", {"fixture image"}}}},
          {"candidates", {{{"ref", image_tag}, {"score", 1.0}, {"reasons", json::array()}, {"risks", json::array()}}}},
          {"install_steps",
           {{{"id", "requirements"},
             {"kind", "pip"},
             {"command", "pip install -r requirements.txt"},
             {"reason", "requirements.txt"}}}},
          {"skipped_packages", json::array()},
          {"kernel_builds", json::array()},
          {"hazards", json::array()},
          {"workload",
           {{"command", "python train.py"},
            {"kind", "train"},
            {"launcher", "shell"},
            {"source", "readme"},
            {"reason", "the README's training command"},
            {"file", "README.md"},
            {"line", 3}}},
          {"rejected_commands", json::array()},
          {"env", {{"PYTORCH_ROCM_ARCH", "gfx942"}}},
          {"validation", json::array()},
          {"metric", nullptr},
          {"metric_note", ""}};
}

/// The pipeline: the in-tree guards, the playbook policy and the docker sandbox on `socket`.
json fixture_pipeline(const std::string& socket, const fs::path& state_dir) {
  return {{"version", 1},
          {"name", "playbook-docker-e2e"},
          {"plugins", {{"search_paths", {r2r::test::plugin_dir().string()}}}},
          {"pipeline",
           {r2r::test::guard_stage("cpu-fallback", "r2r.guard.cpu-fallback"),
            r2r::test::guard_stage("accelerator-swap", "r2r.guard.accelerator-swap"),
            r2r::test::guard_stage("success-claim", "r2r.guard.success-claim"),
            {{"stage", "policy"},
             {"name", "policy"},
             {"use", "r2r.policy.playbook"},
             {"config", {{"max_retries_per_step", 3}}}},
            {{"stage", "sandbox"},
             {"name", "sandbox"},
             {"use", "r2r.sandbox.docker"},
             {"config",
              {{"socket", socket},
               {"default_image", image_tag},
               {"state_dir", state_dir.string()},
               {"default_timeout_s", 60}}}}}}};
}

class PlaybookDocker : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "dockerd needs root here; run the suite as root (CI does)";
    if (run_process("command -v dockerd >/dev/null && command -v docker >/dev/null").exit_code != 0)
      GTEST_SKIP() << "dockerd/docker not installed (scripts/bootstrap.sh installs docker.io)";
    if (r2r::test::private_dockerd::busybox_path().empty()) GTEST_SKIP() << "busybox is not installed (busybox-static)";
    dockerd = std::make_unique<r2r::test::private_dockerd>(tmp.path() / "engine");
    if (!dockerd->ready()) GTEST_SKIP() << "dockerd could not start here:\n" << dockerd->log();
  }
  r2r::test::temp_dir tmp;
  std::unique_ptr<r2r::test::private_dockerd> dockerd;
};

/// Index of the first line at or after `from` whose action has `type` (and, when given, whose
/// action text contains `needle`); -1 when none.
int find_turn(const std::vector<json>& lines, int from, const std::string& type, const std::string& needle = {}) {
  for (int i = from; i < static_cast<int>(lines.size()); ++i) {
    const json& a = lines[i].at("action");
    if (a.value("type", "") == type && (needle.empty() || a.dump().find(needle) != std::string::npos)) return i;
  }
  return -1;
}

TEST_F(PlaybookDocker, FixesTheMissingModuleAndTheNvidiaWheelAndRunsTheWorkloadWithNoModel) {
  dockerd->import_base(image_tag, {{"pip", pip_tool}, {"python", python_tool}, {"python3", python_tool}});
  if (HasFatalFailure()) return;

  // The fixture repository: einops is imported but not in requirements.txt.
  const fs::path repo = tmp.path() / "repo";
  fs::create_directories(repo);
  std::ofstream(repo / "requirements.txt") << "numpy\n";
  std::ofstream(repo / "train.py") << "import einops\nimport numpy\nprint('final loss:', 0.0451)\n";
  std::ofstream(repo / "README.md") << "# fixture\n\n    python train.py\n";

  const json plan = fixture_plan();
  const auto* schema = r2r::core::embedded_schema("plan.schema.json");
  ASSERT_NE(schema, nullptr);
  const auto violations = schema->validate(plan);
  ASSERT_TRUE(violations.empty()) << r2r::core::format_violation(violations.front());
  const fs::path plan_file = tmp.path() / "plan.json";
  std::ofstream(plan_file) << plan.dump(2);

  const json pipeline = fixture_pipeline(dockerd->socket(), tmp.path() / "sandbox-state");
  for (const auto& stage : pipeline.at("pipeline")) {
    EXPECT_NE(stage.at("stage"), "llm") << "no model in this pipeline";
    EXPECT_THAT(stage.at("use").get<std::string>(), ::testing::Not(HasSubstr("llm")));
  }
  const fs::path pipeline_file = tmp.path() / "pipeline.json";
  std::ofstream(pipeline_file) << pipeline.dump(2);

  const fs::path run_dir = tmp.path() / "run";
  const auto r = run_process((r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string() + " execute --json --plan '" +
                             plan_file.string() + "' --pipeline '" + pipeline_file.string() + "' --run-dir '" +
                             run_dir.string() + "' --workspace '" + repo.string() + "' --arch gfx942 --max-turns 20");
  // No verifier in this pipeline: the run ends in give_up (exit 1), never in a claim.
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const json outcome = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(outcome.is_object()) << r.out << r.err;
  EXPECT_EQ(outcome["outcome"], "gave_up") << r.out;

  const auto lines = r2r::test::trajectory(run_dir);
  std::string all;
  for (const auto& l : lines) all += l.dump() + "\n";
  ASSERT_GE(lines.size(), 7u) << all;
  for (const auto& l : lines) {
    // No model: the playbook reports no token usage on any turn.
    const json usage = l.value("usage", json::object());
    EXPECT_EQ(usage.value("input_tokens", 0), 0) << l.dump();
    EXPECT_EQ(usage.value("output_tokens", 0), 0) << l.dump();
  }

  // 1. The plan's install step runs and pulls in the NVIDIA wheel (exit 0, a warning class).
  const int install = find_turn(lines, 0, "run", "pip install -r requirements.txt");
  ASSERT_GE(install, 0) << all;
  EXPECT_EQ(lines[install]["observation"]["exit_code"], 0) << all;
  EXPECT_THAT(lines[install]["observation"]["stdout"].get<std::string>(),
              HasSubstr("Successfully installed numpy-1.26.4 nvidia-cublas-cu12-12.1.3.1"));
  // 2. The knowledge base's fix for nvidia_wheel_installed: uninstall exactly that wheel.
  const int uninstall = find_turn(lines, install + 1, "run", "pip uninstall -y nvidia-cublas-cu12");
  ASSERT_GE(uninstall, 0) << all;
  EXPECT_EQ(lines[uninstall]["decision"]["decision"], "allow");
  EXPECT_EQ(lines[uninstall]["observation"]["exit_code"], 0);
  EXPECT_THAT(lines[uninstall]["rationale"].get<std::string>(), HasSubstr("nvidia_wheel_installed"));
  // 3. The workload fails on the missing module.
  const int failed = find_turn(lines, 0, "run_workload", "python train.py");
  ASSERT_GE(failed, 0) << all;
  EXPECT_EQ(lines[failed]["observation"]["exit_code"], 1) << all;
  EXPECT_THAT(lines[failed]["observation"]["stderr"].get<std::string>(),
              HasSubstr("ModuleNotFoundError: No module named 'einops'"));
  // 4. The fix for missing_python_module:einops: pip install einops.
  const int fix = find_turn(lines, failed + 1, "install", "einops");
  ASSERT_GE(fix, 0) << all;
  EXPECT_EQ(lines[fix]["action"]["manager"], "pip");
  EXPECT_EQ(lines[fix]["action"]["packages"], json::array({"einops"}));
  EXPECT_EQ(lines[fix]["decision"]["decision"], "allow");
  EXPECT_EQ(lines[fix]["observation"]["exit_code"], 0) << all;
  EXPECT_THAT(lines[fix]["rationale"].get<std::string>(), HasSubstr("missing_python_module:einops"));
  // 5. The workload runs again, in the same container state, and exits 0 with the wheel gone.
  const int ran = find_turn(lines, fix + 1, "run_workload", "python train.py");
  ASSERT_GE(ran, 0) << all;
  EXPECT_EQ(lines[ran]["observation"]["exit_code"], 0) << all;
  EXPECT_THAT(lines[ran]["observation"]["stdout"].get<std::string>(), HasSubstr("nvidia wheels: none"));
  EXPECT_THAT(lines[ran]["observation"]["stdout"].get<std::string>(), HasSubstr("final loss: 0.0451"));
  // 6. The claim is denied by the success guard (no verifier), 7. then the playbook gives up.
  const int claim = find_turn(lines, ran + 1, "claim_success");
  ASSERT_GE(claim, 0) << all;
  EXPECT_EQ(lines[claim]["decision"]["decision"], "deny");
  EXPECT_EQ(lines[claim]["decision"]["guard"], "success-claim");
  ASSERT_EQ(static_cast<std::size_t>(claim + 2), lines.size()) << all;
  const json& last = lines.back();
  EXPECT_EQ(last["action"]["type"], "give_up");
  EXPECT_THAT(last["action"]["reason"].get<std::string>(), StartsWith("workload_completed_awaiting_verifier"));
  EXPECT_THAT(outcome["reason"].get<std::string>(), StartsWith("workload_completed_awaiting_verifier"));

  // The sandbox's containers are gone afterwards.
  EXPECT_EQ(dockerd->docker("ps -aq --filter label=org.repo2rocm.sandbox").out, "");
}

}  // namespace
