// SPDX-License-Identifier: MIT
// Forged bundles, attack first: each forgery below is made the way a forger would make it and must
// be rejected by `repo2rocm verify`; where the signature alone would stop it, the bundle is also
// re-signed with the host key itself, so the test shows the recomputation stops it too. The
// honest bundle verifies (false positives count).
#include "bundle_fixture.hpp"

#include "../unit/test_support.hpp"

#include <r2r/report/bundle.hpp>
#include <r2r/report/ledger.hpp>
#include <r2r/report/pfs.hpp>
#include <r2r/report/signing.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using r2r::test::edit_json;
using r2r::test::reseal;
using r2r::test::resign;
using r2r::test::run_process;
using r2r::test::slurp;
using ::testing::HasSubstr;
using ::testing::Not;

class BundleAttack : public ::testing::Test {
 protected:
  void SetUp() override { write(); }
  void write(r2r::test::bundle_fixture_options o = {}) {
    o.judged = true;
    inputs_ = r2r::test::make_bundle_inputs(tmp_.path() / "in", o);
    auto s = r2r::report::write_bundle(inputs_, bundle_);
    ASSERT_TRUE(s) << s.error().to_string();
    fingerprint_ = s->key_fingerprint;
  }
  std::string trusted() const {
    return "--plugin-path '" + r2r::test::plugin_dir().string() + "' --trusted-key '" +
           r2r::report::host_public_key_file(inputs_.state_dir).string() + "'";
  }
  r2r::test::process_result verify() const { return r2r::test::verify_bundle_cli(bundle_, trusted()); }
  /// Re-signs with the host's own key: the strongest forger, who only the recomputation stops.
  void forge() const { resign(bundle_, inputs_.state_dir); }
  /// Expects `verify` to reject the bundle with `message`.
  void expect_rejected(const std::string& message) const {
    const auto r = verify();
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_THAT(r.out, Not(HasSubstr("bundle intact")));
  }

  r2r::test::temp_dir tmp_;
  fs::path bundle_ = tmp_.path() / "bundle";
  r2r::report::bundle_inputs inputs_;
  std::string fingerprint_;
};

TEST_F(BundleAttack, TheHonestBundleVerifies) {
  const auto r = verify();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("bundle intact: verdict pass"));
  EXPECT_THAT(r.out, HasSubstr("repo.tar: a complete archive that patch.diff applies to"));
  EXPECT_THAT(r.out, HasSubstr("renderings: Dockerfile and report.html match"));
}

TEST_F(BundleAttack, AnUnsignedBundleIsRejected) {
  fs::remove(bundle_ / "MANIFEST.sig");
  expect_rejected("MANIFEST.sig: missing: the bundle is unsigned");
}

TEST_F(BundleAttack, AManifestRegeneratedWithoutTheKeyIsRejected) {
  edit_json(bundle_ / "report.json", [](json& doc) { doc["pfs"]["score"] = 100.0; });
  reseal(bundle_);
  expect_rejected("MANIFEST.sha256 does not match its signature in MANIFEST.sig: the manifest was regenerated");
  std::ofstream(bundle_ / "MANIFEST.sig", std::ios::trunc) << "repo2rocm-bundle-signature 1\n";
  expect_rejected("MANIFEST.sig is malformed");
}

TEST_F(BundleAttack, ABundleReSignedWithAnotherKeyIsRejected) {
  const auto forger = tmp_.path() / "forger-state";
  resign(bundle_, forger);
  const auto forger_key = r2r::report::read_public_key(r2r::report::host_public_key_file(forger));
  ASSERT_TRUE(forger_key);
  expect_rejected("MANIFEST.sig: signed by another key (" + forger_key->fingerprint() + "), not the trusted key " +
                  fingerprint_);
  // The key is what is trusted: an auditor told to trust the forger's key accepts the forger's
  // bundle, and verify prints which key that was.
  const auto r =
      r2r::test::verify_bundle_cli(bundle_, "--plugin-path '" + r2r::test::plugin_dir().string() + "' --trusted-key '" +
                                                r2r::report::host_public_key_file(forger).string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("signed by " + forger_key->fingerprint()));
}

TEST_F(BundleAttack, AnEmptyRepoTarIsRejected) {
  std::ofstream(bundle_ / "repo.tar", std::ios::trunc);
  forge();
  expect_rejected("repo.tar is not a complete tar archive: it is empty");
}

TEST_F(BundleAttack, ATruncatedOrGarbageRepoTarIsRejected) {
  const auto tar = slurp(bundle_ / "repo.tar");
  ASSERT_GT(tar.size(), 2048u);
  std::ofstream(bundle_ / "repo.tar", std::ios::trunc | std::ios::binary) << tar.substr(0, 1024 + 100);
  forge();
  expect_rejected("repo.tar is not a complete tar archive");
  // Whole blocks, every member complete, but the end-of-archive marker cut off.
  const auto last_byte = tar.find_last_not_of('\0');
  ASSERT_NE(last_byte, std::string::npos);
  std::ofstream(bundle_ / "repo.tar", std::ios::trunc | std::ios::binary) << tar.substr(0, (last_byte / 512 + 1) * 512);
  forge();
  expect_rejected("without the end-of-archive marker");
  std::ofstream(bundle_ / "repo.tar", std::ios::trunc | std::ios::binary) << std::string(10240, 'x');
  forge();
  expect_rejected("bad checksum");
  // A real archive that holds no file (one directory).
  const auto empty_dir = tmp_.path() / "nothing";
  fs::create_directories(empty_dir);
  ASSERT_EQ(
      run_process("tar -C '" + empty_dir.string() + "' -cf '" + (bundle_ / "repo.tar").string() + "' .").exit_code, 0);
  forge();
  expect_rejected("it holds no file");
}

TEST_F(BundleAttack, ARepoTarThePatchDoesNotApplyToIsRejected) {
  // Another repository's archive: train.py is not the file the port changed.
  const auto other = tmp_.path() / "other-repo";
  fs::create_directories(other);
  std::ofstream(other / "train.py") << "import sys\nprint('something else')\n";
  ASSERT_EQ(run_process("tar -C '" + other.string() + "' -cf '" + (bundle_ / "repo.tar").string() + "' .").exit_code,
            0);
  forge();
  expect_rejected("patch.diff does not apply to repo.tar: hunk 1 of train.py does not match the archived file");
  // The archive lacks the patched file altogether.
  fs::remove(other / "train.py");
  std::ofstream(other / "README.md") << "# other\n";
  ASSERT_EQ(run_process("tar -C '" + other.string() + "' -cf '" + (bundle_ / "repo.tar").string() + "' .").exit_code,
            0);
  forge();
  expect_rejected("changes train.py, which repo.tar does not have");
}

TEST_F(BundleAttack, APatchThatDoesNotApplyIsRejected) {
  auto diff = slurp(bundle_ / "patch.diff");
  const auto at = diff.find(" import os");
  ASSERT_NE(at, std::string::npos);
  diff.replace(at, 10, " import re");
  std::ofstream(bundle_ / "patch.diff", std::ios::trunc) << diff;
  forge();
  expect_rejected("hunk 1 of train.py does not match the archived file");
  std::ofstream(bundle_ / "patch.diff", std::ios::trunc) << "this is not a diff\n";
  forge();
  expect_rejected("patch.diff is not empty but holds no unified diff");
}

TEST_F(BundleAttack, AnEmptyTrajectoryOfARunThatExecutedIsRejected) {
  std::ofstream(bundle_ / "trajectory.jsonl", std::ios::trunc);
  forge();
  expect_rejected("trajectory.jsonl: is empty, but the run executed");
}

TEST_F(BundleAttack, EditedPfsInputsAreRejectedEvenWithAConsistentScore) {
  // A run in an image outside the ranker's set, forged into one inside it: pfs.inputs edited and
  // every PFS term recomputed from the edited inputs, so the score agrees with them.
  r2r::test::bundle_fixture_options o;
  write(o);
  inputs_.image_used = "docker.io/someone/else:latest";
  ASSERT_TRUE(r2r::report::write_bundle(inputs_, bundle_));
  ASSERT_EQ(verify().exit_code, 0);
  edit_json(bundle_ / "report.json", [](json& doc) {
    doc["pfs"]["inputs"]["image_accepted"] = true;
    auto facts = r2r::report::pfs_inputs_from_json(doc["pfs"]["inputs"]);
    ASSERT_TRUE(facts);
    facts->verdict = doc["verdict"];
    for (const auto& e : doc["evidence"]) facts->evidence_kinds.push_back(e["kind"]);
    for (const auto& l : doc["ledger"]) facts->ledger.push_back(*r2r::report::ledger_entry_from_json(l, "ledger"));
    json pfs = r2r::report::to_json(r2r::report::compute_pfs(*facts));
    pfs["inputs"] = doc["pfs"]["inputs"];
    doc["pfs"] = pfs;
  });
  forge();
  expect_rejected("report.json: pfs.");
  const auto r = verify();
  EXPECT_THAT(r.err, HasSubstr("does not match what plan.json, trajectory.jsonl"));
}

TEST_F(BundleAttack, ARemovedLedgerEntryIsRejected) {
  // The guard's D1 entry for flash-attn, then (separately) a plan check's entry.
  edit_json(bundle_ / "report.json", [](json& doc) { doc["ledger"].erase(0); });
  forge();
  expect_rejected("report.json: ledger does not match");
  write();
  inputs_.image_used = "local/r2r-bundle-alt:test";  // a ranked candidate: plan_check:image records D1
  ASSERT_TRUE(r2r::report::write_bundle(inputs_, bundle_));
  ASSERT_EQ(verify().exit_code, 0);
  edit_json(bundle_ / "report.json", [](json& doc) {
    auto& ledger = doc["ledger"];
    for (std::size_t i = 0; i < ledger.size(); ++i)
      if (ledger[i]["source"] == "plan_check:image") ledger.erase(i);
  });
  forge();
  expect_rejected("report.json: ledger does not match");
}

TEST_F(BundleAttack, ACheckRemovedFromAModeOnePassIsRejected) {
  for (const char* removed :
       {"workload_exit", "kernels_on_gpu", "no_cpu_fallback", "accelerator_components", "scale_as_planned"}) {
    write();
    edit_json(bundle_ / "report.json", [&](json& doc) {
      auto& checks = doc["checks"];
      for (std::size_t i = 0; i < checks.size(); ++i)
        if (checks[i]["name"] == removed) checks.erase(i);
    });
    forge();
    SCOPED_TRACE(removed);
    expect_rejected("no verifier passed all of Mode 1's checks");
  }
}

TEST_F(BundleAttack, AVerdictFlippedWithTheEvidenceKeptIsRejected) {
  write({.verdict = "fail"});
  ASSERT_EQ(verify().exit_code, 0);
  edit_json(bundle_ / "report.json", [](json& doc) {
    doc["verdict"] = "pass";
    doc["verifiers"][0]["verdict"] = "pass";
    for (auto& c : doc["checks"]) c["status"] = "pass";
    doc["exit_code"] = {{"code", 0}, {"meaning", "verified: the workload ran on the AMD GPU with runtime evidence"}};
  });
  forge();
  expect_rejected("re-judges to another verdict than report.json records for r2r.verifier.mode1-cuda");
}

TEST_F(BundleAttack, EvidenceSwappedFromAnotherRunIsRejected) {
  const auto stored = bundle_ / "evidence/r2r.verifier.mode1-cuda/capture.json";
  ASSERT_TRUE(fs::is_regular_file(stored));
  // examples/cpu-cheat's capture behind this run's pass.
  std::ofstream(stored, std::ios::trunc) << r2r::test::h200_capture("cpu-cheat").dump(2) << "\n";
  forge();
  expect_rejected("re-judges to another verdict than report.json records");
  // A passing capture of another run (the H200 benchmark): it re-judges to a pass as well, but to
  // other checks, evidence and workload than this report's.
  std::ofstream(stored, std::ios::trunc) << r2r::test::h200_capture("bench").dump(2) << "\n";
  forge();
  expect_rejected("report.json: checks does not match");
}

TEST_F(BundleAttack, APassWithoutItsStoredEvidenceIsRejected) {
  fs::remove_all(bundle_ / "evidence");
  forge();
  expect_rejected("no stored evidence (evidence/<verifier id>/capture.json) re-judges to Mode 1's five passed checks");
  write();
  std::ofstream(bundle_ / "evidence/r2r.verifier.mode1-cuda/verdict.txt") << "pass\n";
  forge();
  expect_rejected("evidence/r2r.verifier.mode1-cuda/verdict.txt: is not the stored capture of a verifier");
  write();
  std::ofstream(bundle_ / "evidence/r2r.verifier.mode1-cuda/capture.json", std::ios::trunc) << "{\"format\": 1}\n";
  forge();
  expect_rejected("cannot be re-judged by r2r.verifier.mode1-cuda");
}

TEST_F(BundleAttack, VerifyEvidenceReJudgesRawEvidence) {
  const std::string bin = (r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string() + " --plugin-path '" +
                          r2r::test::plugin_dir().string() + "' verify-evidence --plan '";
  auto r = run_process(bin + (bundle_ / "plan.json").string() + "' '" + (bundle_ / "evidence").string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("judged by r2r.verifier.mode1-cuda: pass"));
  EXPECT_THAT(r.out, HasSubstr("pass  kernels_on_gpu"));
  EXPECT_THAT(r.out, HasSubstr("evidence verdict: pass"));
  // The cpu-cheat capture, one verifier's directory given directly: fail.
  const auto dir = tmp_.path() / "raw" / "r2r.verifier.mode1-cuda";
  fs::create_directories(dir);
  std::ofstream(dir / "capture.json") << r2r::test::h200_capture("cpu-cheat").dump();
  json plan = json::parse(slurp(bundle_ / "plan.json"));
  plan["workload"]["command"] = "python3 cpu_cheat_train.py --steps 100";
  std::ofstream(tmp_.path() / "cheat-plan.json") << plan.dump();
  r = run_process(bin + (tmp_.path() / "cheat-plan.json").string() + "' '" + dir.string() + "' --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["verdict"], "fail") << r.out;
  r = run_process(bin + (tmp_.path() / "cheat-plan.json").string() + "' '" + tmp_.path().string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.err, HasSubstr("holds no capture.json"));
}

TEST_F(BundleAttack, AnEditedDockerfileOrReportHtmlIsRejected) {
  std::ofstream(bundle_ / "Dockerfile", std::ios::app) << "RUN pip install nvidia-cublas-cu12\n";
  forge();
  expect_rejected("Dockerfile: is not the rendering of plan.json");
  write();
  auto html = slurp(bundle_ / "report.html");
  html.replace(html.find("v-pass"), 6, "v-fail");
  std::ofstream(bundle_ / "report.html", std::ios::trunc) << html;
  forge();
  expect_rejected("report.html: is not the rendering of report.json");
}

TEST_F(BundleAttack, AnEditedEnvironmentIsRejected) {
  std::ofstream(bundle_ / "environment.txt", std::ios::app) << "nvidia-cublas-cu12==12.1.3.1\n";
  forge();
  expect_rejected("does not match what plan.json");
  write();
  fs::remove(bundle_ / "environment.txt");  // "the environment was never observed"
  forge();
  expect_rejected("does not match what plan.json");
}

}  // namespace
