// SPDX-License-Identifier: MIT
// write_bundle() and `repo2rocm verify`: the files, the manifest accepted by sha256sum -c, atomic
// replacement, and bundles edited after the fact rejected with the file and field named.
#include "bundle_fixture.hpp"

#include "../unit/test_support.hpp"

#include <r2r/report/bundle.hpp>
#include <r2r/report/manifest.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using r2r::test::run_process;
using ::testing::HasSubstr;
using ::testing::Not;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

r2r::test::process_result verify(const fs::path& bundle) {
  return run_process((r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string() + " verify '" + bundle.string() + "'");
}

/// Rewrites MANIFEST.sha256 for the current files, as a forger would.
void reseal(const fs::path& bundle) {
  const auto entries = r2r::report::hash_directory(bundle);
  ASSERT_TRUE(entries) << entries.error().to_string();
  std::ofstream(bundle / "MANIFEST.sha256", std::ios::trunc) << r2r::report::render_manifest(*entries);
}

void edit_report(const fs::path& bundle, const std::function<void(nlohmann::json&)>& edit) {
  auto report = nlohmann::json::parse(slurp(bundle / "report.json"));
  edit(report);
  std::ofstream(bundle / "report.json", std::ios::trunc) << report.dump(2) << "\n";
  reseal(bundle);
}

class Bundle : public ::testing::Test {
 protected:
  void SetUp() override {
    inputs_ = r2r::test::make_bundle_inputs(tmp_.path());
    auto s = r2r::report::write_bundle(inputs_, bundle_);
    ASSERT_TRUE(s) << s.error().to_string();
    summary_ = *s;
  }
  r2r::test::temp_dir tmp_;
  fs::path bundle_ = tmp_.path() / "bundle";
  r2r::report::bundle_inputs inputs_;
  r2r::report::bundle_summary summary_;
};

TEST_F(Bundle, HasEveryFileAndSha256sumAcceptsTheManifest) {
  EXPECT_THAT(summary_.files,
              ::testing::ElementsAre("Dockerfile", "MANIFEST.sha256", "commands.log", "patch.diff", "plan.json",
                                     "repo.tar", "report.html", "report.json", "trajectory.jsonl"));
  for (const auto& f : summary_.files) EXPECT_TRUE(fs::is_regular_file(bundle_ / f)) << f;
  const auto check = run_process("cd '" + bundle_.string() + "' && sha256sum --strict -c MANIFEST.sha256");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr("trajectory.jsonl: OK"));
  EXPECT_EQ(summary_.verdict, "pass");
  EXPECT_EQ(summary_.exit_code, 0);
  // flash-attn D1 (0.9) and fused_ops preserved (1): F_path 0.95; everything else 1.
  EXPECT_NEAR(summary_.pfs.score, 15 + 35 * 0.95 + 20 + 20 + 10, 1e-9);
  EXPECT_EQ(slurp(bundle_ / "trajectory.jsonl"), slurp(inputs_.trajectory));
  EXPECT_EQ(slurp(bundle_ / "repo.tar"), slurp(inputs_.repo_archive));
  EXPECT_EQ(slurp(bundle_ / "patch.diff"), inputs_.patch_diff);
  for (const auto& e : fs::directory_iterator(tmp_.path()))
    EXPECT_THAT(e.path().filename().string(), Not(HasSubstr(".tmp-")));
}

TEST_F(Bundle, DockerfileHasThePlanTheExecutorsInstallsAndThePatch) {
  const auto d = slurp(bundle_ / "Dockerfile");
  EXPECT_THAT(d, HasSubstr("FROM local/r2r-bundle-base:test"));
  EXPECT_THAT(d, HasSubstr("ADD repo.tar /workspace/repo/"));
  EXPECT_THAT(d, HasSubstr("COPY patch.diff /tmp/r2r.patch"));
  const auto plan_step = d.find("RUN echo plan-step");
  const auto exec_step = d.find("RUN echo executor-install");
  ASSERT_NE(plan_step, std::string::npos) << d;
  ASSERT_NE(exec_step, std::string::npos) << d;
  EXPECT_LT(plan_step, exec_step);
  EXPECT_THAT(d, Not(HasSubstr("failed-install")));  // exited 1 in the trajectory
}

TEST_F(Bundle, CommandsLogHasHostAndSandboxSidesWithSecretsRedacted) {
  inputs_.host_commands.push_back({"R2R_GIT_TOKEN=ghp_s3cr3t git clone https://bob:hunter2@example.org/r.git", 0, 2});
  ASSERT_TRUE(r2r::report::write_bundle(inputs_, bundle_));
  const auto log = slurp(bundle_ / "commands.log");
  EXPECT_THAT(log, HasSubstr("host\t0\t30.25\tdocker build -t r2r-run:1 plan/"));
  EXPECT_THAT(log, HasSubstr("sandbox\t0\t0.50\tpython train.py"));
  EXPECT_THAT(log, HasSubstr("R2R_GIT_TOKEN=*** git clone https://***@example.org/r.git"));
  EXPECT_THAT(log, Not(HasSubstr("ghp_s3cr3t")));
  EXPECT_THAT(log, Not(HasSubstr("hunter2")));
}

TEST_F(Bundle, VerifyAcceptsAnIntactBundle) {
  const auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("bundle intact: verdict pass, PFS 98.25"));
}

TEST_F(Bundle, VerifyRejectsAByteChangedInTheTrajectory) {
  auto text = slurp(bundle_ / "trajectory.jsonl");
  text[text.find("\"turn\":2") + 7] = '9';
  std::ofstream(bundle_ / "trajectory.jsonl", std::ios::trunc) << text;
  const auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("trajectory.jsonl: SHA-256 mismatch"));
}

TEST_F(Bundle, VerifyRejectsAFlippedVerdictEvenWithARecomputedManifest) {
  edit_report(bundle_, [](nlohmann::json& doc) { doc["verdict"] = "fail"; });
  const auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("report.json: verdict is \"fail\" but the verifiers' verdicts give \"pass\""));
}

TEST_F(Bundle, VerifyRejectsAPassWhoseChecksFailed) {
  edit_report(bundle_, [](nlohmann::json& doc) { doc["checks"][1]["status"] = "fail"; });
  const auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("verdict is pass but one of its checks is fail"));
}

TEST_F(Bundle, VerifyRejectsAPassWithoutRuntimeEvidence) {
  edit_report(bundle_, [](nlohmann::json& doc) {
    for (auto& e : doc["evidence"]) e["kind"] = "stdout_marker";
  });
  const auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("without evidence of kind kernel_trace, gpu_process or probe"));
}

TEST_F(Bundle, VerifyRejectsAnInflatedScore) {
  edit_report(bundle_, [](nlohmann::json& doc) { doc["pfs"]["score"] = 100.0; });
  auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("pfs.score is 100; recomputed from its terms 98.25"));
  edit_report(bundle_, [](nlohmann::json& doc) {
    doc["pfs"]["score"] = 98.25;
    doc["pfs"]["inputs"]["critical_components"] = nlohmann::json::array({"flash-attn"});
  });
  r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("critical_components lacks fused_ops"));
}

TEST_F(Bundle, VerifyRejectsALedgerThatHidesAGuardDecision) {
  edit_report(bundle_, [](nlohmann::json& doc) { doc["ledger"][0]["level"] = "D0"; });
  const auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not match trajectory.jsonl's decisions"));
}

TEST_F(Bundle, VerifyRejectsAddedAndRemovedFiles) {
  std::ofstream(bundle_ / "extra.txt") << "x";
  auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("extra.txt: is not listed in MANIFEST.sha256"));
  fs::remove(bundle_ / "extra.txt");
  EXPECT_EQ(verify(bundle_).exit_code, 0);
  fs::remove(bundle_ / "patch.diff");
  r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("patch.diff: listed in MANIFEST.sha256 but missing"));
  reseal(bundle_);  // a forger who also drops the file from the manifest
  r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("patch.diff: missing: every bundle has it"));
}

TEST_F(Bundle, VerifyRejectsASchemaViolationAndAMalformedManifest) {
  edit_report(bundle_, [](nlohmann::json& doc) { doc["costs"]["usd"] = "cheap"; });
  auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("/costs/usd"));
  auto m = slurp(bundle_ / "MANIFEST.sha256");
  std::ofstream(bundle_ / "MANIFEST.sha256", std::ios::trunc) << m.substr(0, m.size() - 1);
  r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("MANIFEST.sha256: the last line has no newline"));
  EXPECT_EQ(verify(tmp_.path() / "nope").exit_code, 2);
}

TEST_F(Bundle, RewritingReplacesTheOldBundleAtomically) {
  r2r::test::temp_dir other;
  auto in = r2r::test::make_bundle_inputs(other.path(), {.verdict = "no_device"});
  auto s = r2r::report::write_bundle(in, bundle_);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->verdict, "no_device");
  EXPECT_EQ(s->exit_code, 4);
  EXPECT_EQ(s->pfs.score, 0);
  const auto report = nlohmann::json::parse(slurp(bundle_ / "report.json"));
  EXPECT_EQ(report["verdict"], "no_device");
  EXPECT_EQ(report["exit_code"]["code"], 4);
  EXPECT_THAT(report["pfs"]["ran"]["why"].get<std::string>(), HasSubstr("no AMD GPU"));
  const auto r = verify(bundle_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("verdict no_device, PFS 0"));
  for (const auto& e : fs::directory_iterator(tmp_.path()))
    EXPECT_THAT(e.path().filename().string(), Not(HasSubstr(".tmp-")));
}

TEST_F(Bundle, AFailedWriteLeavesTheOldBundleAndNoTemporaryDirectory) {
  const auto before = slurp(bundle_ / "report.json");
  auto in = inputs_;
  in.verifiers[0].response["checks"][0]["status"] = "maybe";
  const auto s = r2r::report::write_bundle(in, bundle_);
  ASSERT_FALSE(s);
  EXPECT_THAT(s.error().message, HasSubstr("/checks/0/status"));
  EXPECT_EQ(slurp(bundle_ / "report.json"), before);
  in = inputs_;
  in.repo_archive = tmp_.path() / "absent.tar";
  const auto fresh = tmp_.path() / "fresh";
  const auto s2 = r2r::report::write_bundle(in, fresh);
  ASSERT_FALSE(s2);
  EXPECT_THAT(s2.error().message, HasSubstr("repo.tar"));
  EXPECT_FALSE(fs::exists(fresh));
  for (const auto& e : fs::directory_iterator(tmp_.path()))
    EXPECT_THAT(e.path().filename().string(), Not(HasSubstr(".tmp-")));
}

TEST_F(Bundle, HtmlEscapesCommandsAndTheDiff) {
  r2r::test::temp_dir other;
  auto in = r2r::test::make_bundle_inputs(other.path(), {.extra_commands = {"echo '<script>alert(1)</script>'"}});
  in.patch_diff += "+<script>document.title='pwned'</script>\n";
  ASSERT_TRUE(r2r::report::write_bundle(in, bundle_));
  const auto html = slurp(bundle_ / "report.html");
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, HasSubstr("echo &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;"));
  EXPECT_THAT(html, HasSubstr("+&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"));
  for (const char* external : {"src=", "href=", "url(", "@import", "<link", "<img", "<iframe"})
    EXPECT_THAT(html, Not(HasSubstr(external))) << "report.html must not load anything";
}

}  // namespace
