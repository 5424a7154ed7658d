// SPDX-License-Identifier: MIT
// PFS terms against hand-computed values (docs/bundle.md tables), the ledger merge, the
// plan-versus-executed checks, SHA-256, the manifest format and HTML escaping.
#include "bundle_fixture.hpp"

#include "../unit/test_support.hpp"

#include <r2r/report/bundle.hpp>
#include <r2r/report/html.hpp>
#include <r2r/report/ledger.hpp>
#include <r2r/report/manifest.hpp>
#include <r2r/report/pfs.hpp>
#include <r2r/report/sha256.hpp>
#include <r2r/report/trajectory.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::report;
using ::testing::HasSubstr;

ledger_entry entry(const std::string& component, int level, const std::string& source) {
  return {component, level, source, "note", std::nullopt};
}

pfs_inputs faithful_run() {
  pfs_inputs in;
  in.verdict = "pass";
  in.evidence_kinds = {"workload_exit", "kernel_trace"};
  in.critical_components = {"flash-attn", "fused_ops"};
  in.workload_planned = in.workload_executed = in.workload_matches_plan = true;
  in.environment_observed = true;
  in.image_accepted = true;
  in.image_used = "rocm/pytorch:x";
  return in;
}

TEST(Pfs, FaithfulRunWithOneGuardReportedD2) {
  auto in = faithful_run();
  in.ledger = {entry("flash-attn", 2, "guard:r2r.guard.accelerator-swap")};
  const auto b = compute_pfs(in);
  // F_path = (0.6 + 1) / 2 = 0.8; PFS = 15 + 35*0.8 + 20 + 20 + 10 = 93
  EXPECT_EQ(b.ran.value, 1);
  EXPECT_NEAR(b.f_path.value, 0.8, 1e-12);
  EXPECT_EQ(b.a_work.value, 1);
  EXPECT_NEAR(b.a_env.value, 1, 1e-12);
  EXPECT_EQ(b.d_proc.value, 1);
  EXPECT_NEAR(b.score, 93.0, 1e-9);
  ASSERT_EQ(b.components.size(), 2u);
  EXPECT_EQ(b.components[0].component, "flash-attn");
  EXPECT_EQ(b.components[0].level, 2);
  EXPECT_THAT(b.f_path.why, HasSubstr("flash-attn D2"));
  EXPECT_THAT(b.ran.why, HasSubstr("kernel_trace"));
}

TEST(Pfs, DegradedRunEveryTermReduced) {
  auto in = faithful_run();
  in.evidence_kinds = {"probe"};
  in.critical_components = {"flash-attn"};
  in.ledger = {entry("Flash_Attn", 3, "verifier:r2r.verifier.mode1"),  // same component, other spelling
               entry("workload", 5, "plan_check:workload"), entry("xformers", 4, "guard:r2r.guard.accelerator-swap"),
               entry("numpy", 0, "plan_check:environment")};
  in.workload_matches_plan = false;
  in.unpinned_packages = {"numpy"};
  in.image_accepted = false;
  in.image_used = "ubuntu:22.04";
  const auto b = compute_pfs(in);
  // F_path: flash-attn D3 0.3, xformers D4 0 -> 0.15. A_work: one D5 -> 0.5.
  // A_env: NVIDIA-free only -> 1/3. D_proc: complete 0.5 + 0/2 substitutions reported -> 0.5.
  // PFS = 15 + 5.25 + 10 + 6.6667 + 5 = 41.9167
  EXPECT_NEAR(b.f_path.value, 0.15, 1e-12);
  EXPECT_NEAR(b.a_work.value, 0.5, 1e-12);
  EXPECT_NEAR(b.a_env.value, 1.0 / 3, 1e-12);
  EXPECT_NEAR(b.d_proc.value, 0.5, 1e-12);
  EXPECT_NEAR(b.score, 15 + 5.25 + 10 + 20.0 / 3 + 5, 1e-9);
  EXPECT_THAT(b.d_proc.why, HasSubstr("not reported during the run"));
  EXPECT_THAT(b.a_env.why, HasSubstr("unpinned: numpy"));
  EXPECT_THAT(b.a_env.why, HasSubstr("ubuntu:22.04"));
}

TEST(Pfs, SubstitutionReportedByAGuardCountsAsDocumented) {
  auto in = faithful_run();
  in.ledger = {entry("flash-attn", 2, "guard:g"), entry("flash-attn", 2, "verifier:v")};
  EXPECT_EQ(compute_pfs(in).d_proc.value, 1);
  in.ledger.pop_back();
  in.ledger.push_back(entry("fused_ops", 3, "verifier:v"));
  EXPECT_NEAR(compute_pfs(in).d_proc.value, 0.5, 1e-12);
}

TEST(Pfs, NoDeviceGivesZeroAndSaysWhy) {
  auto in = faithful_run();
  in.verdict = "no_device";
  const auto b = compute_pfs(in);
  EXPECT_EQ(b.ran.value, 0);
  EXPECT_EQ(b.score, 0);
  EXPECT_THAT(b.ran.why, HasSubstr("no AMD GPU"));
  EXPECT_NEAR(b.f_path.value, 1, 1e-12);  // the other terms are still reported
}

TEST(Pfs, PassWithoutRuntimeEvidenceIsNotRunnable) {
  auto in = faithful_run();
  in.evidence_kinds = {"workload_exit", "metric"};
  const auto b = compute_pfs(in);
  EXPECT_EQ(b.ran.value, 0);
  EXPECT_EQ(b.score, 0);
  EXPECT_THAT(b.ran.why, HasSubstr("no runtime evidence"));
}

TEST(Pfs, UnobservedEnvironmentAndMissingPartsLowerTheScore) {
  auto in = faithful_run();
  in.environment_observed = false;
  in.missing_files = {"commands.log"};
  in.workload_executed = false;
  in.critical_components.clear();
  const auto b = compute_pfs(in);
  EXPECT_NEAR(b.a_env.value, 1.0 / 3, 1e-12);
  EXPECT_EQ(b.a_work.value, 0);
  EXPECT_EQ(b.d_proc.value, 0.5);
  EXPECT_EQ(b.f_path.value, 1);
  EXPECT_NEAR(b.score, 15 + 35 + 0 + 20.0 / 3 + 5, 1e-9);
  EXPECT_THAT(b.d_proc.why, HasSubstr("no commands.log"));
}

TEST(Pfs, GradeTable) {
  const double expected[] = {1.0, 0.9, 0.6, 0.3, 0.0, 0.0};
  for (int l = 0; l <= 5; ++l) EXPECT_EQ(path_grade(l), expected[l]) << l;
}

TEST(Verdicts, CombinedVerdictIsTheMostSevere) {
  EXPECT_EQ(combine_verdicts({}), "error");
  EXPECT_EQ(combine_verdicts({"pass", "pass"}), "pass");
  EXPECT_EQ(combine_verdicts({"pass", "fail"}), "fail");
  EXPECT_EQ(combine_verdicts({"fail", "no_device"}), "no_device");
  EXPECT_EQ(combine_verdicts({"no_device", "error", "pass"}), "error");
  EXPECT_EQ(combine_verdicts({"pass", "not_verified"}), "fail") << "evidence that could not decide is not a pass";
  EXPECT_EQ(combine_verdicts({"pass", "maybe"}), "error") << "an unknown verdict is never a pass";
  EXPECT_EQ(exit_code_of("pass"), 0);
  EXPECT_EQ(exit_code_of("fail"), 3);
  EXPECT_EQ(exit_code_of("no_device"), 4);
  EXPECT_EQ(exit_code_of("error"), 1);
}

TEST(Ledger, GuardEntriesCarryTurnAndGuard) {
  auto t = parse_trajectory(
      r2r::test::trajectory_line(7, "run", "x", "allow", 0, R"([{"component":"attention","level":"D2","note":"sdpa"}])",
                                 "r2r.guard.accelerator-swap"),
      "t");
  ASSERT_TRUE(t) << t.error().to_string();
  auto l = guard_ledger(*t);
  ASSERT_TRUE(l) << l.error().to_string();
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ((*l)[0].component, "attention");
  EXPECT_EQ((*l)[0].level, 2);
  EXPECT_EQ((*l)[0].source, "guard:r2r.guard.accelerator-swap");
  EXPECT_EQ((*l)[0].turn, 7);
  auto bad = parse_trajectory(
      r2r::test::trajectory_line(2, "run", "x", "allow", 0, R"([{"component":"a","level":"D9"}])"), "t");
  ASSERT_TRUE(bad);
  const auto err = guard_ledger(*bad);
  ASSERT_FALSE(err);
  EXPECT_THAT(err.error().message, HasSubstr("D0, D1, D2, D3, D4, D5"));
}

TEST(Ledger, TrajectoryLineErrorsNameTheLine) {
  const auto t = parse_trajectory("{\"turn\":1}\n\nnot json\n", "trajectory.jsonl");
  ASSERT_FALSE(t);
  EXPECT_THAT(t.error().message, HasSubstr("trajectory.jsonl line 3"));
}

TEST(Ledger, BuildReportMergesGuardVerifierAndPlanChecks) {
  r2r::test::temp_dir tmp;
  r2r::test::bundle_fixture_options o;
  o.executed_workload = "cat  /workspace/repo/train.py --small";
  auto in = r2r::test::make_bundle_inputs(tmp.path(), o);
  in.verifiers[0].response["ledger"] = {{{"component", "fused_ops"}, {"level", "D3"}, {"note", "torch op"}}};
  in.image_used = "local/r2r-bundle-alt:test";  // a ranked candidate, not the chosen base
  in.environment_freeze = std::vector<std::string>{"torch==2.5.1+rocm6.2", "nvidia-cublas-cu12==12.1.3.1", "numpy"};
  auto traj = read_trajectory(in.trajectory);
  ASSERT_TRUE(traj);
  const auto report = build_report(in, *traj);
  ASSERT_TRUE(report) << report.error().to_string();
  std::vector<std::string> got;
  for (const auto& e : (*report)["ledger"])
    got.push_back(e["source"].get<std::string>() + " " + e["component"].get<std::string>() + " " +
                  e["level"].get<std::string>());
  EXPECT_THAT(got, ::testing::ElementsAre(
                       "guard:r2r.guard.accelerator-swap flash-attn D1", "verifier:r2r.verifier.fixture fused_ops D3",
                       "plan_check:workload workload D5", "plan_check:image base_image D1",
                       "plan_check:environment nvidia-cublas-cu12 D2", "plan_check:environment numpy D0"));
  const auto& inputs = (*report)["pfs"]["inputs"];
  EXPECT_EQ(inputs["workload_matches_plan"], false);
  EXPECT_EQ(inputs["image_accepted"], true);
  EXPECT_EQ(inputs["nvidia_packages"], nlohmann::json({"nvidia-cublas-cu12==12.1.3.1"}));
  EXPECT_EQ(inputs["unpinned_packages"], nlohmann::json({"numpy"}));
  EXPECT_EQ(inputs["critical_components"], nlohmann::json({"flash-attn", "fused_ops"}));
  // F_path: flash-attn D1 0.9, fused_ops D3 0.3 -> 0.6. A_work 0.5. A_env: image only -> 1/3.
  // D_proc: 0.5 + 0.5 * 0/4 (fused_ops, workload, base_image, nvidia wheel unreported) = 0.5.
  EXPECT_NEAR((*report)["pfs"]["score"].get<double>(), 15 + 35 * 0.6 + 10 + 20.0 / 3 + 5, 1e-9);
  EXPECT_EQ((*report)["costs"]["turns"], 4);
  EXPECT_EQ((*report)["costs"]["input_tokens"], 10000);
  EXPECT_NEAR((*report)["costs"]["usd"].get<double>(), 0.10, 1e-9);
  EXPECT_EQ((*report)["versions"]["rocm"], "6.2.0");
  EXPECT_EQ((*report)["versions"]["torch"], "2.5.1+rocm6.2");
}

TEST(Ledger, InvalidVerifierResponseIsRejectedWithThePointer) {
  r2r::test::temp_dir tmp;
  auto in = r2r::test::make_bundle_inputs(tmp.path());
  in.verifiers[0].response["verdict"] = "probably";
  const auto report = build_report(in, {});
  ASSERT_FALSE(report);
  EXPECT_THAT(report.error().message, HasSubstr("r2r.verifier.fixture"));
  EXPECT_THAT(report.error().message, HasSubstr("/verdict"));
}

TEST(Sha256, KnownVectorsAndFiles) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  r2r::test::temp_dir tmp;
  const std::string big(200000, 'x');  // several read blocks
  const auto f = tmp.write("big", big);
  EXPECT_EQ(*sha256_file(f), sha256_hex(big));
  EXPECT_FALSE(sha256_file(tmp.path() / "absent"));
}

TEST(Manifest, StrictParsing) {
  const std::string h(64, 'a');
  EXPECT_TRUE(parse_manifest(h + "  a\n" + h + "  b\n"));
  auto unsorted = parse_manifest(h + "  b\n" + h + "  a\n");
  ASSERT_FALSE(unsorted);
  EXPECT_THAT(unsorted.error().message, HasSubstr("line 2"));
  EXPECT_FALSE(parse_manifest(h + "  a"));                       // truncated
  EXPECT_FALSE(parse_manifest(h + " a\n"));                      // one space
  EXPECT_FALSE(parse_manifest(std::string(64, 'A') + "  a\n"));  // upper-case hex
  EXPECT_FALSE(parse_manifest(h + "  ../x\n"));                  // a path
  EXPECT_FALSE(parse_manifest(h + "  MANIFEST.sha256\n"));       // itself
  EXPECT_FALSE(parse_manifest(h + "  a\n" + h + "  a\n"));       // duplicate
  EXPECT_FALSE(parse_manifest(""));
}

TEST(Html, EscapesEverything) {
  EXPECT_EQ(html_escape("<script>alert('x&y')</script>\""),
            "&lt;script&gt;alert(&#39;x&amp;y&#39;)&lt;/script&gt;&quot;");
}

}  // namespace
