// SPDX-License-Identifier: MIT
#include "mode2_verifier.hpp"

#include <r2r/sdk/kinds/sandbox.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::verifier::mode2_verifier;
using ::testing::HasSubstr;
namespace v = r2r::sdk::verifier;

nlohmann::json plan_with(const std::string& name, double value, const std::string& klass, const std::string& dir,
                         nlohmann::json tolerance = nullptr) {
  nlohmann::json m = {{"name", name}, {"value", value}, {"class", klass}, {"direction", dir}};
  if (!tolerance.is_null()) m["tolerance"] = tolerance;
  return {{"workload", {{"command", "python eval.py"}}}, {"metric", m}};
}

nlohmann::json mode1(const std::string& verdict, const std::string& log) {
  return {{"verdict", verdict},
          {"checks", nlohmann::json::array()},
          {"workload", {{"command", "python eval.py"}, {"exit_code", 0}, {"log", log}}}};
}

class Mode2 : public ::testing::Test {
 protected:
  v::verify_response run(const v::verify_request& req, mode2_verifier::config cfg = {}) {
    mode2_verifier m(cfg, host.sdk_host());
    auto ctx = host.context();
    return m.verify(req, ctx);
  }
  r2r::sdk::testing::fake_host host;
};

TEST_F(Mode2, NeedsAMode1Pass) {
  v::verify_request req;
  req.mode = 2;
  req.plan = plan_with("accuracy", 76.1, "accuracy", "higher");
  req.workload_log = "accuracy: 76.0\n";
  auto r = run(req);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(r.checks.at(0).status, "not_verified");
  EXPECT_THAT(r.summary, HasSubstr("Mode 1 pass first"));
  req.earlier.push_back(mode1("no_device", "accuracy: 76.0\n"));
  EXPECT_EQ(run(req).verdict, "fail");
}

TEST_F(Mode2, AccuracyWithinThreePointsFromTheMode1Log) {
  v::verify_request req;
  req.plan = plan_with("accuracy", 76.1, "accuracy", "higher");
  req.workload_log = "accuracy: 10.0\n";  // ignored: the Mode 1 run's own log is the evidence
  req.earlier.push_back(mode1("pass", "epoch 1 loss=0.51\nfinal accuracy: 75.2\n"));
  const auto r = run(req);
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  EXPECT_EQ(r.metrics.at("accuracy"), 75.2);
}

TEST_F(Mode2, SpeedupOutsideToleranceIsRefused) {
  v::verify_request req;
  req.plan = plan_with("speedup", 2.0, "ratio", "higher");
  req.earlier.push_back(mode1("pass", "speedup: 1.45x\nspeedup: 1.6\n"));
  const auto r = run(req);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(r.metrics.at("speedup"), 1.6);
  EXPECT_THAT(r.checks.back().detail, HasSubstr("tolerance 15 % relative"));
}

TEST_F(Mode2, ExplicitToleranceWins) {
  v::verify_request req;
  req.plan = plan_with("loss", 1.0, "loss", "lower", {{"kind", "relative"}, {"value", 0.2}});
  req.earlier.push_back(mode1("pass", "loss: 1.15\n"));
  EXPECT_EQ(run(req).verdict, "pass");  // 15 % off: outside the class default (5 %), inside the plan's 20 %
}

TEST_F(Mode2, MissingMetricFails) {
  v::verify_request req;
  req.plan = plan_with("bleu", 27.3, "other", "higher");
  req.earlier.push_back(mode1("pass", "done\n"));
  const auto r = run(req);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(r.checks.back().detail, HasSubstr("never prints 'bleu'"));
}

TEST_F(Mode2, DifferentialAgainstACudaReference) {
  v::verify_request req;
  req.plan = {{"workload", {{"command", "python bench.py"}}}, {"metric", nullptr}};
  req.earlier.push_back(mode1("pass", "tokens_per_s: 950\nppl = 12.4\n"));
  req.reference_metrics = {{"tokens_per_s", 1000}, {"ppl", 12.1}};
  req.reference_source = "H200 run";
  mode2_verifier::config cfg;
  auto r = run(req, cfg);
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  cfg.differential_tolerance = 0.01;
  r = run(req, cfg);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(r.checks.back().detail, HasSubstr("H200 run"));
}

TEST_F(Mode2, AliasesFromConfig) {
  v::verify_request req;
  req.plan = plan_with("accuracy", 90, "accuracy", "higher");
  req.earlier.push_back(mode1("pass", "top1: 89.0\n"));
  mode2_verifier::config cfg;
  EXPECT_EQ(run(req, cfg).verdict, "fail");
  cfg.aliases["accuracy"] = {"top1"};
  EXPECT_EQ(run(req, cfg).verdict, "pass");
}

TEST_F(Mode2, AmbiguousSplitIsNotVerifiedNeverAWrongNumber) {
  v::verify_request req;
  req.plan = plan_with("accuracy", 76.1, "accuracy", "higher");
  req.earlier.push_back(mode1("pass", "test accuracy: 61.0\ntrain accuracy: 76.3\n"));
  auto r = run(req);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(r.checks.back().status, "not_verified");
  EXPECT_THAT(r.checks.back().detail, HasSubstr("train accuracy: 76.3"));
  EXPECT_FALSE(r.metrics.contains("accuracy"));
  // The plan's extractor names the split: the test value is read and judged (61 is not 76.1).
  req.plan["metric"]["extractor"] = {{"kind", "label"}, {"label", "accuracy"}, {"qualifier", "test"}};
  r = run(req);
  EXPECT_EQ(r.metrics.at("accuracy"), 61.0);
  EXPECT_EQ(r.checks.back().status, "fail");
}

TEST_F(Mode2, RegexExtractor) {
  v::verify_request req;
  req.plan = plan_with("accuracy", 76.1, "accuracy", "higher");
  req.plan["metric"]["extractor"] = {{"kind", "regex"}, {"pattern", "top-1 accuracy ([0-9.]+)%"}};
  req.earlier.push_back(mode1("pass", "Epoch 76 accuracy 12.3\ntop-1 accuracy 75.9%\n"));
  const auto r = run(req);
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  EXPECT_EQ(r.metrics.at("accuracy"), 75.9);
}

TEST_F(Mode2, JsonFileExtractorReadsTheWorkspaceThroughTheSandbox) {
  nlohmann::json seen;
  host.serve("sandbox", [&](const std::string& method, const nlohmann::json& req) {
    EXPECT_EQ(method, "exec");
    seen = req;
    r2r::sdk::sandbox::exec_response out;
    out.stdout_text = R"({"test": {"accuracy": 75.5}})";
    return nlohmann::json(out);
  });
  v::verify_request req;
  req.plan = plan_with("accuracy", 76.1, "accuracy", "higher");
  req.plan["metric"]["extractor"] = {{"kind", "json"}, {"file", "out/results.json"}, {"key", "test.accuracy"}};
  req.sandbox = v::sandbox_ref{"sbx1", "/workspace", "img"};
  req.earlier.push_back(mode1("pass", "accuracy: 10\n"));
  const auto r = run(req);
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  EXPECT_EQ(r.metrics.at("accuracy"), 75.5);
  EXPECT_EQ(seen.at("env").at("R2R_METRIC_FILE"), "out/results.json");
  EXPECT_EQ(seen.at("workdir"), "/workspace");
}

}  // namespace
