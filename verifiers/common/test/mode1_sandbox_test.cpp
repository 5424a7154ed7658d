// SPDX-License-Identifier: MIT
// The verifier plugins loaded from the build's plugin directory and run against the real
// r2r.sandbox.local (bubblewrap) on this machine, which has no GPU: a workload that prints every
// success marker is still never a pass. Skips, saying why, only when bwrap cannot run here.
// Also collect.sh run for real, in bwrap and directly as root (as on the H200, through
// r2r-mode1-capture), with a stand-in nvidia-smi as the device and tests/data/collector-attack/
// attack.py (nonce hunt, pipe injection, forged probe, forged sections) as the workload.
#include "test_support.hpp"

#include <r2r/verify/capture.hpp>
#include <r2r/verify/mode1.hpp>
#include <r2r/verify/text.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <r2r/core/plugin_instance.hpp>
#include <r2r/core/plugin_registry.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>

namespace {

using ::testing::HasSubstr;

class directory : public r2r::core::service_directory {
 public:
  r2r::core::plugin_instance* resolve(std::string_view name) override {
    auto it = by_name.find(std::string(name));
    return it == by_name.end() ? nullptr : it->second;
  }
  std::map<std::string, r2r::core::plugin_instance*> by_name;
};

class Mode1Sandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = r2r::core::plugin_registry::load({{r2r::test::plugin_dir(), "test"}});
    ASSERT_TRUE(loaded.has_value());
    registry = std::make_unique<r2r::core::plugin_registry>(std::move(*loaded));
    sandbox = instance("r2r.sandbox.local", nlohmann::json::object(), "sandbox");
    ASSERT_TRUE(sandbox);
    services.by_name["sandbox"] = sandbox.get();
    auto created = sandbox->call("create", nlohmann::json::object());
    if (!created.has_value()) GTEST_SKIP() << "r2r.sandbox.local cannot run here: " << created.error().to_string();
    id = created->at("sandbox_id").get<std::string>();
    auto probe = sandbox->call("exec", {{"sandbox_id", id}, {"command", "true"}});
    if (!probe.has_value() || probe->at("exit_code") != 0) GTEST_SKIP() << "bwrap cannot create namespaces here";
  }
  void TearDown() override {
    if (!id.empty()) (void)sandbox->call("destroy", {{"sandbox_id", id}});
  }

  std::unique_ptr<r2r::core::plugin_instance> instance(const char* plugin_id, const nlohmann::json& config,
                                                       const char* name) {
    const auto* plugin = registry->find(plugin_id);
    EXPECT_NE(plugin, nullptr) << plugin_id;
    if (plugin == nullptr) return nullptr;
    r2r::core::instance_options options;
    options.name = name;
    options.services = &services;
    auto made = r2r::core::plugin_instance::create(*plugin, config, options);
    EXPECT_TRUE(made.has_value()) << plugin_id << ": " << (made.has_value() ? "" : made.error().to_string());
    return made.has_value() ? std::move(*made) : nullptr;
  }

  nlohmann::json verify(r2r::core::plugin_instance& verifier, const std::string& command, int mode = 1,
                        nlohmann::json earlier = nlohmann::json::array()) {
    const nlohmann::json request = {
        {"plan", {{"workload", {{"command", command}, {"kind", "train"}}}, {"metric", nullptr}}},
        {"mode", mode},
        {"sandbox", {{"id", id}}},
        {"device", {{"vendor", "amd"}}},
        {"earlier", earlier}};
    auto r = verifier.call("verify", request);
    EXPECT_TRUE(r.has_value()) << (r.has_value() ? "" : r.error().to_string());
    return r.has_value() ? *r : nlohmann::json{{"verdict", "missing"}};
  }

  std::unique_ptr<r2r::core::plugin_registry> registry;
  directory services;
  std::unique_ptr<r2r::core::plugin_instance> sandbox;
  std::string id;
};

r2r::plugins::verifier::mode1_capture capture_of(const nlohmann::json& reply) {
  r2r::plugins::verifier::mode1_capture c;
  c.vendor = "nvidia";
  c.collector.exit_code = reply.at("exit_code");
  c.collector.timed_out = reply.value("timed_out", false);
  c.collector.truncated = reply.value("truncated", false);
  c.collector.stdout_text = reply.at("stdout");
  c.nonce = r2r::plugins::verifier::fence_of(c.collector.stdout_text);
  c.host_sampler_note = "this machine has no GPU";
  return c;
}

r2r::sdk::verifier::verify_response judge_attack(const r2r::plugins::verifier::mode1_capture& c) {
  r2r::plugins::verifier::mode1_config cfg;
  cfg.vendor = "nvidia";
  return r2r::plugins::verifier::judge_mode1(
      cfg, r2r::plugins::verifier::expectations_from_plan({{"workload", {{"command", "python3 attack.py"}}}}, cfg), c);
}

const std::string attack_dir = std::string(R2R_TEST_DATA) + "/collector-attack";

TEST_F(Mode1Sandbox, CollectorInBwrapWithAStandInDeviceNeverPasses) {
  auto pwd = sandbox->call("exec", {{"sandbox_id", id}, {"command", "mkdir -p bin && pwd"}});
  ASSERT_TRUE(pwd.has_value());
  const std::string ws(r2r::plugins::verifier::trim(pwd->at("stdout").get<std::string>()));
  for (const auto& [file, to] : {std::pair{"attack.py", ws}, std::pair{"nvidia-smi", ws + "/bin"}}) {
    auto copied =
        sandbox->call("copy_in", {{"sandbox_id", id}, {"host_path", attack_dir + "/" + file}, {"sandbox_path", to}});
    ASSERT_TRUE(copied.has_value()) << copied.error().to_string();
  }
  r2r::plugins::verifier::mode1_config cfg;
  cfg.vendor = "nvidia";
  cfg.timeout_s = 60;
  auto env = r2r::plugins::verifier::collect_env(cfg, "python3 attack.py");
  env["PATH"] = ws + "/bin:/usr/local/bin:/usr/bin:/bin";
  auto reply = sandbox->call(
      "exec",
      {{"sandbox_id", id}, {"command", r2r::plugins::verifier::collect_script()}, {"env", env}, {"timeout_s", 120}});
  ASSERT_TRUE(reply.has_value()) << reply.error().to_string();
  ASSERT_EQ(reply->value("stdout_encoding", "utf-8"), "utf-8");
  const auto c = capture_of(*reply);
  const auto r = judge_attack(c);
  EXPECT_THAT(r.verdict, ::testing::AnyOf("fail", "not_verified")) << r.summary << "\n" << c.collector.stdout_text;
  // Inside bwrap's user namespace only the caller's uid is mapped: no privilege drop is possible,
  // so the evidence is never a pass; and no nonce is in any environment or argv to find.
  EXPECT_THAT(c.collector.stdout_text, HasSubstr("nonces found: []")) << c.collector.stdout_text;
}

TEST(Mode1Collector, DirectRunAsRootDropsPrivilegesAndTheAttackFindsNothing) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "collect.sh drops privileges only as root; this test runs as uid " << ::geteuid();
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("r2r-collector-run-" + std::to_string(::getpid()));
  fs::create_directories(dir / "bin");
  fs::copy_file(attack_dir + "/attack.py", dir / "attack.py");
  fs::copy_file(attack_dir + "/nvidia-smi", dir / "bin" / "nvidia-smi");
  for (const auto& p : {dir, dir / "bin"})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  const std::string cap = (dir / "capture.json").string();
  const std::string cmd =
      "cd '" + dir.string() + "' && PATH='" + dir.string() + "/bin':$PATH '" + R2R_CAPTURE_TOOL +
      "' collect --vendor nvidia --command 'python3 attack.py' --timeout 60 --interval 0.2 --out '" + cap + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(cap);
  const auto c = nlohmann::json::parse(in).get<r2r::plugins::verifier::mode1_capture>();
  fs::remove_all(dir);
  const auto r = judge_attack(c);
  EXPECT_EQ(r.verdict, "fail") << r.summary;
  const auto& out = c.collector.stdout_text;
  EXPECT_TRUE(out.starts_with("@@R2R-FENCE ")) << "nothing reached the collector's stdout before its fence";
  EXPECT_THAT(out, HasSubstr("privdrop\nok 65534"));
  EXPECT_THAT(out, HasSubstr("nonces found: []"));
  EXPECT_THAT(out, HasSubstr("wrote forged sections into: []")) << "no pipe of another process was writable";
  for (const auto& ch : r.checks)
    if (ch.name == "evidence_integrity") {
      EXPECT_THAT(ch.detail, HasSubstr("marker line inside the evidence"));
    }
  ASSERT_TRUE(r.workload.has_value());
  EXPECT_EQ(r.workload->exit_code, 3) << "the real exit code, not the forged 0";
}

/// collect.sh run directly with the stand-in nvidia-smi; the workload prints what the probe was told.
/// Its workload uid is not DirectRunAsRoot's: a root collector kills every process of its workload
/// uid, so two run in parallel must not share one.
std::string collect_profile_run(const std::string& profile, bool names_needed) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("r2r-collector-profile-" + std::to_string(::getpid()));
  fs::create_directories(dir / "bin");
  fs::copy_file(attack_dir + "/nvidia-smi", dir / "bin" / "nvidia-smi", fs::copy_options::overwrite_existing);
  for (const auto& p : {dir, dir / "bin"})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  const std::string cap = (dir / "capture.json").string();
  const std::string cmd =
      "cd '" + dir.string() + "' && PATH='" + dir.string() + "/bin':$PATH '" + R2R_CAPTURE_TOOL +
      "' collect --vendor nvidia --workload-uid 65533 --command 'echo probe-profile=$R2R_PROBE_PROFILE "
      "names=${R2R_NEED_KERNEL_NAMES:-unset}' --timeout 30 --interval 0.2 --profile " +
      profile + " --names-needed " + (names_needed ? "1" : "0") + " --out '" + cap + "' 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(cap);
  const auto c = nlohmann::json::parse(in).get<r2r::plugins::verifier::mode1_capture>();
  fs::remove_all(dir);
  return c.collector.stdout_text;
}

TEST(Mode1Collector, ProfilerRunsOnlyWhereKernelNamesAreNeeded) {
  // auto, a plan with no accelerator-critical kernels: the profiler's exit cost is never paid.
  auto out = collect_profile_run("auto", false);
  EXPECT_THAT(out, HasSubstr("profiler\noff: auto, the plan names no accelerator-critical kernels"));
  EXPECT_THAT(out, HasSubstr("probe-profile=0 names=unset")) << out;
  // auto, planned builds on NVIDIA (no kernel tracer): the names come from the profiler.
  out = collect_profile_run("auto", true);
  EXPECT_THAT(out, HasSubstr("profiler\non: auto, the plan names accelerator-critical kernels and no tracer runs"));
  EXPECT_THAT(out, HasSubstr("probe-profile=1 names=unset")) << out;
  // Forced either way.
  EXPECT_THAT(collect_profile_run("1", false), HasSubstr("probe-profile=1"));
  EXPECT_THAT(collect_profile_run("0", true), HasSubstr("probe-profile=0"));
}

constexpr const char* markers_on_cpu =
    "touch workload-ran && printf "
    "'print(\"ROCM_ENV_VERIFIED\")\\nprint(\"Success\")\\nprint(\"PAPER_RESULT_REPRODUCED\")\\n' > w.py && "
    "python3 w.py";

TEST_F(Mode1Sandbox, RocmMarkersOnTheCpuAreNoDeviceNeverPass) {
  auto v = instance("r2r.verifier.mode1-rocm", {{"timeout_s", 60}}, "verify_rocm");
  ASSERT_TRUE(v);
  const auto r = verify(*v, markers_on_cpu);
  EXPECT_EQ(r.at("verdict"), "no_device");
  EXPECT_EQ(r.at("summary"), "no ROCm device: not verified");
  for (const auto& c : r.at("checks")) EXPECT_EQ(c.at("status"), "not_verified") << c.dump();
  EXPECT_FALSE(r.contains("workload")) << "without a device the workload is not run";
  EXPECT_THAT(r.at("evidence").at(0).at("detail").get<std::string>(), HasSubstr("/dev/kfd"));
  const auto ran = sandbox->call("exec", {{"sandbox_id", id}, {"command", "test -e workload-ran"}});
  ASSERT_TRUE(ran.has_value());
  EXPECT_NE(ran->at("exit_code"), 0) << "the workload must not run without a device";
}

TEST_F(Mode1Sandbox, CudaVerifierWithoutAnNvidiaGpuIsNoDevice) {
  auto v = instance("r2r.verifier.mode1-cuda", {{"timeout_s", 60}}, "verify_cuda");
  ASSERT_TRUE(v);
  const auto r = verify(*v, markers_on_cpu);
  EXPECT_EQ(r.at("verdict"), "no_device");
  EXPECT_EQ(r.at("summary"), "no NVIDIA device: not verified");
}

TEST_F(Mode1Sandbox, Mode2RefusesAfterNoDevice) {
  auto v1 = instance("r2r.verifier.mode1-rocm", {{"timeout_s", 60}}, "verify_rocm");
  auto v2 = instance("r2r.verifier.mode2-metrics", nlohmann::json::object(), "verify_metrics");
  ASSERT_TRUE(v1 && v2);
  const auto first = verify(*v1, "echo 'accuracy: 99.0'");
  const auto r = verify(*v2, "echo 'accuracy: 99.0'", 2, nlohmann::json::array({first}));
  EXPECT_EQ(r.at("verdict"), "fail");
  EXPECT_THAT(r.at("summary").get<std::string>(), HasSubstr("Mode 1 pass first"));
}

}  // namespace
