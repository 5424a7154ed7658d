// SPDX-License-Identifier: MIT
// r2r.policy.playbook on scripted histories: the proposal for each turn from the plan and the
// history alone, and the same proposal when the executor trimmed the history but passed the state.
#include "playbook_policy.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

using namespace r2r::plugins::policy;
using nlohmann::json;
using r2r::sdk::policy::proposal;
using r2r::sdk::policy::propose_request;
using r2r::sdk::policy::turn_record;
using ::testing::HasSubstr;

json plan(bool kernels = false) {
  json steps = json::array({{{"id", "image-constraints"},
                             {"kind", "constraints"},
                             {"command", "pip freeze > /opt/r2r/c.txt"},
                             {"reason", "r"}},
                            {{"id", "pip-requirements"},
                             {"kind", "pip"},
                             {"command", "pip install -c /opt/r2r/c.txt -r requirements.txt"},
                             {"reason", "r"}}});
  json builds = json::array();
  if (kernels) {
    steps.push_back({{"id", "build-repository-extensions"},
                     {"kind", "kernel_build"},
                     {"command", "pip install --no-build-isolation -e ."},
                     {"reason", "r"}});
    builds.push_back({{"kind", "setup_extension"}, {"name", "ext"}, {"step", "build-repository-extensions"}});
  }
  return {{"arch", "gfx942"},
          {"install_steps", steps},
          {"kernel_builds", builds},
          {"workload", {{"command", "python train.py --epochs 1"}, {"kind", "train"}}}};
}

const json constraints{{"type", "run"}, {"command", "pip freeze > /opt/r2r/c.txt"}};
const json requirements{{"type", "run"}, {"command", "pip install -c /opt/r2r/c.txt -r requirements.txt"}};
const json workload{{"type", "run_workload"}, {"command", "python train.py --epochs 1"}};

turn_record turn(std::int64_t n, json action, int exit_code, std::string err = "", std::string out = "") {
  turn_record t;
  t.turn = n;
  t.action = std::move(action);
  t.observed = true;
  t.exit_code = exit_code;
  t.stderr_text = std::move(err);
  t.stdout_text = std::move(out);
  return t;
}

turn_record denied(std::int64_t n, json action, std::string guard, std::string reason, std::string unlock) {
  turn_record t;
  t.turn = n;
  t.action = std::move(action);
  t.decision = "deny";
  t.guard = std::move(guard);
  t.reason = std::move(reason);
  t.unlock = std::move(unlock);
  return t;
}

class Playbook : public ::testing::Test {
 protected:
  proposal propose(const std::vector<turn_record>& history, json p = plan(),
                   std::vector<r2r::sdk::policy::hint> hints = {}) {
    propose_request r;
    r.turn = history.empty() ? 0 : history.back().turn + 1;
    r.plan = std::move(p);
    r.history = history;
    r.hints = std::move(hints);
    r.context.arch = "gfx942";
    return policy().propose(r);
  }
  playbook_policy& policy() {
    if (!policy_) policy_.emplace(cfg, r2r::sdk::host(nullptr));
    return *policy_;
  }
  std::string reason(const proposal& p) { return p.action.value("reason", std::string()); }

  playbook_policy::config cfg;
  std::optional<playbook_policy> policy_;
};

const std::string timm_missing =
    "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    import timm\n"
    "ModuleNotFoundError: No module named 'timm'\n";
const json install_timm{{"type", "install"}, {"manager", "pip"}, {"packages", {"timm"}}};

// PEP 668: the real pip output of an externally managed interpreter (Debian 12's python3) on the
// install step. The playbook runs the step in a workspace venv that keeps the image's packages,
// then runs every later step and fix in it, and never offers --break-system-packages.
const std::string pep668 =
    "error: externally-managed-environment\n\n\u00d7 This environment is externally managed\n"
    "\u2570\u2500> To install Python packages system-wide, try apt install\n    python3-xyz, where xyz is the "
    "package you are trying to\n    install.\n\nnote: If you believe this is a mistake, please contact your Python "
    "installation or OS distribution provider. You can override this, at the risk of breaking your Python "
    "installation or OS, by passing --break-system-packages.\nhint: See PEP 668 for the detailed specification.\n";

TEST_F(Playbook, Pep668InstallRunsInAWorkspaceVenvAndLaterStepsStayInIt) {
  std::vector<turn_record> h;
  h.push_back(turn(0, constraints, 0));
  h.push_back(turn(1, requirements, 1, pep668));
  const json venv_install{{"type", "run"},
                          {"command",
                           "python3 -m venv --system-site-packages .venv && . .venv/bin/activate && pip "
                           "install -c /opt/r2r/c.txt -r requirements.txt"}};
  const auto fix = propose(h);
  EXPECT_EQ(fix.action, venv_install);
  EXPECT_THAT(fix.rationale, HasSubstr("pep668_externally_managed"));
  EXPECT_THAT(fix.action.dump(), ::testing::Not(HasSubstr("break-system-packages")));
  h.push_back(turn(2, venv_install, 0, "", "Successfully installed einops-0.8.0"));
  // Past the install step: the workload is next, in the venv.
  const json venv_workload{{"type", "run_workload"}, {"command", ". .venv/bin/activate && python train.py --epochs 1"}};
  const auto next = propose(h);
  EXPECT_EQ(next.action, venv_workload);
  EXPECT_EQ(next.state.value("venv", ""), ".venv");
  // A fix of a later failure runs in the venv too (the system pip would refuse again).
  h.push_back(turn(3, venv_workload, 1, timm_missing));
  const json venv_timm{{"type", "run"}, {"command", ". .venv/bin/activate && python -m pip install 'timm'"}};
  EXPECT_EQ(propose(h).action, venv_timm);
  h.push_back(turn(4, venv_timm, 0, "", "Successfully installed timm-1.0.3"));
  EXPECT_EQ(propose(h).action, venv_workload);
  h.push_back(turn(5, venv_workload, 0, "", "epoch 1 loss 0.52"));
  EXPECT_EQ(propose(h).action.at("type"), "claim_success");
}

/// Runs `command` with /bin/sh in `dir` with the local sandbox's environment (PATH
/// /usr/local/bin:/usr/bin:/bin, HOME the workspace, nothing else); the exit code and the output.
std::pair<int, std::string> sandbox_like(const std::filesystem::path& dir, const std::string& command) {
  std::string quoted = "'";
  for (char c : command) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  const std::string line = "cd '" + dir.string() + "' && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME='" +
                           dir.string() + "' /bin/sh -c " + quoted + " 2>&1";
  FILE* pipe = popen(line.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf{};
  while (const auto n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The no-model path on a fresh machine whose python3 is externally managed (Debian 12, Ubuntu 24.04):
// the install step really fails with PEP 668 here, the playbook's fix really gets past it, and the
// next step runs in the venv.
TEST_F(Playbook, Pep668FixGetsPastTheInstallStepOnThisMachine) {
  bool managed = false;
  for (const auto& e : std::filesystem::directory_iterator("/usr/lib"))
    managed = managed || std::filesystem::exists(e.path() / "EXTERNALLY-MANAGED");
  if (!managed || access("/usr/bin/python3", X_OK) != 0)
    GTEST_SKIP()
        << "this machine's /usr/bin/python3 is not externally managed (no /usr/lib/python3*/EXTERNALLY-MANAGED)";
  const auto ws = std::filesystem::temp_directory_path() / ("r2r-pep668-" + std::to_string(getpid()));
  std::filesystem::remove_all(ws);
  std::filesystem::create_directories(ws);
  std::ofstream(ws / "requirements.txt") << "";
  json p = plan();
  p["install_steps"] = json::array({{{"id", "pip-requirements"},
                                     {"kind", "pip"},
                                     {"command", "pip install --no-index -r requirements.txt"},
                                     {"reason", "r"}}});
  const json step{{"type", "run"}, {"command", "pip install --no-index -r requirements.txt"}};
  std::vector<turn_record> h;
  EXPECT_EQ(propose(h, p).action, step);
  const auto [failed, failure_text] = sandbox_like(ws, step.at("command").get<std::string>());
  ASSERT_NE(failed, 0) << failure_text;
  ASSERT_THAT(failure_text, HasSubstr("externally-managed-environment"));
  h.push_back(turn(0, step, failed, failure_text));
  const auto fix = propose(h, p);
  ASSERT_EQ(fix.action.value("type", ""), "run") << fix.action.dump();
  const auto [fixed, fix_text] = sandbox_like(ws, fix.action.at("command").get<std::string>());
  EXPECT_EQ(fixed, 0) << fix_text;
  EXPECT_TRUE(std::filesystem::exists(ws / ".venv/bin/activate"));
  h.push_back(turn(1, fix.action, fixed, "", fix_text));
  EXPECT_EQ(propose(h, p).action,
            (json{{"type", "run_workload"}, {"command", ". .venv/bin/activate && python train.py --epochs 1"}}));
  std::filesystem::remove_all(ws);
}

TEST_F(Playbook, StepsInOrderThenFixRetryWorkloadAndClaim) {
  std::vector<turn_record> h;
  EXPECT_EQ(propose(h).action, constraints);
  h.push_back(turn(0, constraints, 0));
  EXPECT_EQ(propose(h).action, requirements);
  h.push_back(turn(1, requirements, 0, "", "Successfully installed einops-0.8.0"));
  EXPECT_EQ(propose(h).action, workload);
  h.push_back(turn(2, workload, 1, timm_missing));
  const auto fix = propose(h);
  EXPECT_EQ(fix.action, install_timm);
  EXPECT_THAT(fix.rationale, HasSubstr("missing_python_module:timm"));
  h.push_back(turn(3, install_timm, 0, "", "Successfully installed timm-1.0.3"));
  EXPECT_EQ(propose(h).action, workload) << "the failed step is retried after its fix";
  h.push_back(turn(4, workload, 0, "", "epoch 1 loss 0.52"));
  const auto claim = propose(h);
  EXPECT_EQ(claim.action.at("type"), "claim_success");
  EXPECT_THAT(reason(claim), HasSubstr("exited 0 at turn 4"));
  h.push_back(
      denied(5, claim.action, "success_claim", "claim_success before the verifier ran", "run the verifier stage"));
  const auto done = propose(h);
  EXPECT_EQ(done.action.at("type"), "give_up");
  EXPECT_THAT(reason(done), ::testing::StartsWith("workload_completed_awaiting_verifier: "));
  EXPECT_THAT(reason(done), HasSubstr("success_claim: claim_success before the verifier ran"));
}

TEST_F(Playbook, NvidiaWheelsThatSlippedInAreUninstalledBeforeTheNextStep) {
  std::vector<turn_record> h{turn(0, constraints, 0),
                             turn(1, requirements, 0, "",
                                  "Successfully installed nvidia-cublas-cu12-12.1.3.1 nvidia-cudnn-cu12-8.9.2.26 "
                                  "timm-1.0.3")};
  const auto p = propose(h);
  EXPECT_EQ(p.action, (json{{"type", "run"}, {"command", "pip uninstall -y nvidia-cublas-cu12 nvidia-cudnn-cu12"}}));
  EXPECT_THAT(p.rationale, HasSubstr("succeeded with a warning nvidia_wheel_installed"));
  h.push_back(turn(2, p.action, 0));
  EXPECT_EQ(propose(h).action, workload) << "after the uninstall the playbook moves on, not back";
}

TEST_F(Playbook, NvidiaOnlyModuleIsReplacedByItsRocmCounterpart) {
  std::vector<turn_record> h{turn(0, constraints, 0), turn(1, requirements, 0),
                             turn(2, workload, 1, "ModuleNotFoundError: No module named 'pynvml'\n")};
  EXPECT_EQ(propose(h).action, (json{{"type", "run"}, {"command", "pip install /opt/rocm/share/amd_smi"}}));
}

TEST_F(Playbook, NoKnownFixGivesUpWithStepSignatureAndAdvice) {
  std::vector<turn_record> h{turn(0, constraints, 0), turn(1, requirements, 0),
                             turn(2, workload, 134,
                                  "HW Exception by GPU node-9 (Agent handle: 0x64ff272d8ab0) reason :GPU Hang\n"
                                  "Aborted (core dumped)\n")};
  const auto p = propose(h);
  ASSERT_EQ(p.action.at("type"), "give_up");
  EXPECT_EQ(reason(p),
            "step `workload` (workload: run_workload `python train.py --epochs 1`) failed with signature gpu_hang; "
            "fixes tried: none; no other known fix applies; advice (gpu_hang): a kernel hang or an RCCL deadlock; "
            "rerun once with AMD_SERIALIZE_KERNEL=3 to locate it. A hang is not fixed by reducing scale (that is a "
            "degradation)");
}

TEST_F(Playbook, UnclassifiedFailureGivesUpWithTheLastOutput) {
  std::vector<turn_record> h{turn(0, constraints, 0), turn(1, requirements, 2, "ERROR: bad flag --frobnicate\n")};
  const auto p = propose(h);
  ASSERT_EQ(p.action.at("type"), "give_up");
  EXPECT_THAT(reason(p), HasSubstr("step `pip-requirements` (install_steps[1]"));
  EXPECT_THAT(reason(p), HasSubstr("failed with signature exit:2"));
  EXPECT_THAT(reason(p), HasSubstr("matches no known failure class; last output:\nERROR: bad flag --frobnicate"));
}

TEST_F(Playbook, AFixThatDidNotHelpIsNeverRepeatedForTheSameSignature) {
  std::vector<turn_record> h{turn(0, constraints, 0), turn(1, requirements, 0), turn(2, workload, 1, timm_missing),
                             turn(3, install_timm, 0), turn(4, workload, 1, timm_missing)};
  const auto p = propose(h);
  ASSERT_EQ(p.action.at("type"), "give_up");
  EXPECT_THAT(reason(p), HasSubstr("fixes tried: install (pip) timm for missing_python_module:timm -> ok"));

  std::vector<turn_record> failed_fix{turn(0, constraints, 0), turn(1, requirements, 0),
                                      turn(2, workload, 1, timm_missing),
                                      turn(3, install_timm, 1, "ERROR: No matching distribution found for timm")};
  const auto q = propose(failed_fix);
  ASSERT_EQ(q.action.at("type"), "give_up");
  EXPECT_THAT(reason(q), HasSubstr("-> failed (exit 1)"));
}

TEST_F(Playbook, MemoryHintIsTriedAfterTheKnowledgeFixesAndOnlyOnce) {
  const json hint_fix{{"type", "run"}, {"command", "pip install timm==0.9.16"}};
  std::vector<r2r::sdk::policy::hint> hints{
      {"memory", "fixed missing_python_module:timm 3 of 3 times", hint_fix, "run r1"}};
  std::vector<turn_record> h{turn(0, constraints, 0), turn(1, requirements, 0), turn(2, workload, 1, timm_missing),
                             turn(3, install_timm, 0), turn(4, workload, 1, timm_missing)};
  EXPECT_EQ(propose(h, plan(), hints).action, hint_fix);
  h.push_back(turn(5, hint_fix, 0));
  EXPECT_EQ(propose(h, plan(), hints).action, workload);
  h.push_back(turn(6, workload, 1, timm_missing));
  EXPECT_EQ(propose(h, plan(), hints).action.at("type"), "give_up");
}

TEST_F(Playbook, MissingCodeObjectRebuildsThePlansKernelsForTheArch) {
  const json build{{"type", "build_kernel"}, {"command", "pip install --no-build-isolation -e ."}};
  std::vector<turn_record> h{turn(0, constraints, 0), turn(1, requirements, 0), turn(2, build, 0),
                             turn(3, workload, 1, "RuntimeError: HIP error: invalid device function\n")};
  const auto p = propose(h, plan(true));
  EXPECT_EQ(p.action,
            (json{{"type", "build_kernel"},
                  {"command",
                   "export PYTORCH_ROCM_ARCH=gfx942 GPU_ARCHS=gfx942 HIPCC_COMPILE_FLAGS_APPEND=--offload-arch="
                   "gfx942 && pip install --no-build-isolation -e ."}}));
  EXPECT_THAT(p.action.dump(), ::testing::Not(HasSubstr("HSA_OVERRIDE_GFX_VERSION")));
  h.push_back(turn(4, p.action, 0));
  EXPECT_EQ(propose(h, plan(true)).action, workload);
}

TEST_F(Playbook, GuardDenialOfAStepGivesUpWithTheUnlock) {
  std::vector<turn_record> h{turn(0, constraints, 0),
                             denied(1, requirements, "accelerator_swap", "installs a CUDA wheel",
                                    "remove the +cu121 pin from requirements.txt")};
  const auto p = propose(h);
  ASSERT_EQ(p.action.at("type"), "give_up");
  EXPECT_THAT(reason(p), HasSubstr("was denied by accelerator_swap: installs a CUDA wheel (unlock: remove the +cu121"));
}

TEST_F(Playbook, DegradingFixesOnlyWhenAllowedAndRetryBudgetIsKept) {
  const std::string ck_failed = "  ERROR: Failed building wheel for flash_attn\nFailed to build flash_attn\n";
  std::vector<turn_record> h{turn(0, constraints, 0), turn(1, requirements, 1, ck_failed)};
  EXPECT_EQ(propose(h).action.at("type"), "give_up");
  cfg.allow_degradation_fixes = true;
  policy_.reset();
  const auto p = propose(h);
  EXPECT_EQ(p.action, (json{{"type", "run"},
                            {"command",
                             "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE pip install -c /opt/r2r/c.txt -r "
                             "requirements.txt"}}));
  EXPECT_THAT(p.rationale, HasSubstr("degradation D2"));
  h.push_back(turn(2, p.action, 0));
  EXPECT_EQ(propose(h).action, workload) << "a retries_step fix that succeeds completes the step";

  cfg.max_retries_per_step = 1;
  policy_.reset();
  std::vector<turn_record> oom{turn(0, constraints, 0), turn(1, requirements, 0),
                               turn(2, workload, 1, "torch.OutOfMemoryError: HIP out of memory.")};
  const auto retry = propose(oom);
  EXPECT_EQ(retry.action.at("command"), "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True python train.py --epochs 1");
  oom.push_back(turn(3, retry.action, 1, "torch.OutOfMemoryError: HIP out of memory."));
  const auto stop = propose(oom);
  ASSERT_EQ(stop.action.at("type"), "give_up");
  EXPECT_THAT(reason(stop), HasSubstr("failed 2 times (max_retries_per_step 1)"));
}

TEST_F(Playbook, StateIsRecomputedFromTheHistoryAndCarriesTrimmedTurns) {
  const std::vector<turn_record> full{turn(0, constraints, 0), turn(1, requirements, 0),
                                      turn(2, workload, 1, timm_missing), turn(3, install_timm, 0),
                                      turn(4, workload, 1, timm_missing)};
  for (std::size_t n = 1; n <= full.size(); ++n) {
    const std::vector<turn_record> prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    const auto from_history = propose(prefix);
    // The same request with the previous turn's state gives the same proposal and state.
    propose_request r;
    r.turn = static_cast<std::int64_t>(n);
    r.plan = plan();
    r.history = prefix;
    r.context.arch = "gfx942";
    const std::vector<turn_record> before(prefix.begin(), prefix.end() - 1);
    r.state = propose(before).state;
    const auto with_state = policy().propose(r);
    EXPECT_EQ(with_state.action, from_history.action) << "turn " << n;
    EXPECT_EQ(with_state.state, from_history.state) << "turn " << n;
    // The history trimmed to its last turn, with that state, still gives the same proposal.
    r.history = {prefix.back()};
    if (prefix.back().turn > 0) {
      const auto trimmed = policy().propose(r);
      EXPECT_EQ(trimmed.action, from_history.action) << "turn " << n;
      EXPECT_EQ(trimmed.state, from_history.state) << "turn " << n;
    }
  }
  EXPECT_EQ(propose(full).state.at("attempts").size(), 1u);
}

TEST_F(Playbook, APlanWithoutWorkloadIsRejected) {
  json p = plan();
  p["workload"] = nullptr;
  try {
    propose({}, p);
    FAIL();
  } catch (const r2r::sdk::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("the plan has no workload command"));
  }
}

TEST_F(Playbook, ExtraStepsRunBeforeTheWorkload) {
  cfg.extra_steps = {{"smoke", "run", "python -c 'import torch'"}};
  const json smoke{{"type", "run"}, {"command", "python -c 'import torch'"}};
  std::vector<turn_record> h{turn(0, constraints, 0), turn(1, requirements, 0)};
  EXPECT_EQ(propose(h).action, smoke);
  h.push_back(turn(2, smoke, 0));
  EXPECT_EQ(propose(h).action, workload);
}

}  // namespace
