// SPDX-License-Identifier: MIT
// Unit tests of the guard logic, without loading the library (fake host).
#include "success_claim_guard.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::guard::success_claim_guard;
using ::testing::HasSubstr;

r2r::sdk::guard::check_request request(nlohmann::json a, nlohmann::json context = nlohmann::json::object()) {
  return nlohmann::json{{"action", std::move(a)}, {"context", std::move(context)}}
      .get<r2r::sdk::guard::check_request>();
}
r2r::sdk::guard::check_request run(const std::string& command) {
  return request({{"type", "run"}, {"command", command}});
}

class SuccessClaimGuard : public ::testing::Test {
 protected:
  r2r::sdk::testing::fake_host host;
  success_claim_guard guard{success_claim_guard::config{}, host.sdk_host()};
};

TEST_F(SuccessClaimGuard, ClaimSuccessNeedsAPassingVerifierRun) {
  const auto none = guard.check_action(request({{"type", "claim_success"}}));
  EXPECT_EQ(none.verdict, "deny");
  EXPECT_THAT(none.reason, HasSubstr("before the verifier ran"));
  EXPECT_THAT(none.unlock, HasSubstr("verifier_ran"));
  const auto failed = guard.check_action(request({{"type", "claim_success"}}, {{"verifier_ran", true}}));
  EXPECT_EQ(failed.verdict, "deny");
  EXPECT_THAT(failed.reason, HasSubstr("reported failure"));
  EXPECT_EQ(
      guard.check_action(request({{"type", "claim_success"}}, {{"verifier_ran", true}, {"verifier_passed", true}}))
          .verdict,
      "allow");
}

TEST_F(SuccessClaimGuard, DeniesEchoingOrPrintingTheMarker) {
  for (const char* command :
       {"echo ROCM_ENV_VERIFIED", "echo \"ROCM_ENV_VERIFIED\"", "printf 'ROCM_ENV_VERIFIED\\n'",
        "printf '%s_%s\\n' ROCM_ENV VERIFIED", "printf 'ROCM_ENV_%s' VERIFIED", "echo PAPER_RESULT_REPRODUCED: 91.2",
        "python -c \"print('ROCM_ENV_VERIFIED')\"", "bash -c 'echo ROCM_ENV_VERIFIED'",
        "echo $(echo ROCM_ENV_VERIFIED)", "M=ROCM_ENV_VERIFIED; echo $M", "echo ROCM_ENV_VERIFIED > ok.txt"}) {
    const auto d = guard.check_action(run(command));
    EXPECT_EQ(d.verdict, "deny") << command;
    EXPECT_THAT(d.reason, HasSubstr("success marker")) << command;
    EXPECT_FALSE(d.unlock.empty()) << command;
  }
}

TEST_F(SuccessClaimGuard, DeniesWorkloadFollowedByEcho) {
  for (const char* command : {"python train.py && echo ROCM_ENV_VERIFIED", "python t.py; echo ROCM_ENV_VERIFIED",
                              "python t.py | tail -1 && echo 'ROCM_ENV_VERIFIED'",
                              "timeout 600 python t.py || true; echo ROCM_ENV_VERIFIED"}) {
    EXPECT_EQ(guard.check_action(run(command)).verdict, "deny") << command;
  }
}

TEST_F(SuccessClaimGuard, DeniesCatOfAFileWrittenWithTheMarker) {
  const auto w = guard.check_action(
      request({{"type", "write_file"}, {"path", "./logs/status.txt"}, {"content", "all good\nROCM_ENV_VERIFIED\n"}}));
  EXPECT_EQ(w.verdict, "deny");
  for (const char* command : {"cat logs/status.txt", "cd /w && cat /w/logs/status.txt", "tail -n1 ./logs/status.txt",
                              "python t.py && cat < logs/status.txt"}) {
    const auto d = guard.check_action(run(command));
    EXPECT_EQ(d.verdict, "deny") << command;
    EXPECT_THAT(d.reason, HasSubstr("status.txt")) << command;
  }
  EXPECT_EQ(guard.check_action(run("cat logs/other.txt")).verdict, "allow");

  const std::string patch = "--- a/plan.md\n+++ b/plan.md\n@@ -1 +1,2 @@\n x\n+ROCM_ENV_VERIFIED\n";
  EXPECT_EQ(guard.check_action(request({{"type", "apply_patch"}, {"patch", patch}})).verdict, "deny");
  EXPECT_EQ(guard.check_action(run("cat plan.md")).verdict, "deny");
}

TEST_F(SuccessClaimGuard, AllowsSearchingForTheMarkerAndOrdinaryWork) {
  for (const char* command : {"python verify.py | grep -q ROCM_ENV_VERIFIED", "rg PAPER_RESULT_REPRODUCED logs/",
                              "python train.py && echo done", "cat README.md", "echo ROCM_ENV", "printf '%%' a b"}) {
    EXPECT_EQ(guard.check_action(run(command)).verdict, "allow") << command;
  }
  EXPECT_EQ(guard.check_action(request({{"type", "write_file"}, {"path", "a.py"}, {"content", "print('ok')"}})).verdict,
            "allow");
}

TEST_F(SuccessClaimGuard, ConfiguredMarkersAndReaders) {
  success_claim_guard custom({{"DONE_OK"}, {}}, host.sdk_host());
  EXPECT_EQ(custom.check_action(run("echo DONE_OK")).verdict, "deny");
  EXPECT_EQ(custom.check_action(run("grep DONE_OK log")).verdict, "deny");  // no readers configured
  EXPECT_EQ(custom.check_action(run("echo ROCM_ENV_VERIFIED")).verdict, "allow");
  EXPECT_THROW(success_claim_guard({{}, {}}, host.sdk_host()), r2r::sdk::invalid_argument);
  EXPECT_THROW(success_claim_guard({{""}, {}}, host.sdk_host()), r2r::sdk::invalid_argument);
}

TEST_F(SuccessClaimGuard, ObserveFlagsMarkersInOutput) {
  r2r::sdk::guard::observe_request r;
  r.action.type = "run";
  r.observation.stdout_text = "loss 0.1\nROCM_ENV_VERIFIED\n";
  const auto out = guard.observe(r);
  ASSERT_EQ(out.evidence.size(), 1u);
  EXPECT_EQ(out.evidence[0].kind, "unverified_marker");
  r.observation.stdout_text = "loss 0.1\n";
  EXPECT_TRUE(guard.observe(r).evidence.empty());
}

TEST_F(SuccessClaimGuard, LogsDenialsThroughTheHost) {
  guard.check_action(run("echo ROCM_ENV_VERIFIED"));
  bool logged = false;
  for (const auto& line : host.lines()) logged = logged || line.message.find("deny run") != std::string::npos;
  EXPECT_TRUE(logged);
}

}  // namespace
