// SPDX-License-Identifier: MIT
// The Mode 1 verdict of honest runs: the H200 captures of collect.sh (tests/data/h200/trust) judged
// through the verifier's judge method, and AMD captures assembled from real rocminfo / rocprofv3 /
// rocm-smi outputs (tests/data/real-outputs) with host KFD samples. Also the verifier object through
// a fake host whose sandbox service returns collector output. The attacks are in mode1_attack_test.cpp.
#include "mode1_fixtures.hpp"

#include <r2r/sdk/error.hpp>
#include <r2r/sdk/kinds/sandbox.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::verifier;
using namespace r2r::plugins::verifier::testdata;
using ::testing::HasSubstr;
namespace v = r2r::sdk::verifier;

// ------------------------------------------------------------------ NVIDIA H200 (real captures)

TEST(Mode1Cuda, RealH200HonestCapturePassesThroughJudge) {
  const auto r = judge_h200("honest", "python3 honest.py 20");
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  EXPECT_EQ(check_named(r, "evidence_integrity").status, "pass");
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("nvidia-smi pmon"));
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("NVIDIA H200"));
  ASSERT_TRUE(r.workload.has_value());
  EXPECT_EQ(r.workload->exit_code, 0);
  EXPECT_THAT(r.workload->log, HasSubstr("on NVIDIA H200"));
  ASSERT_TRUE(r.metrics.contains("gpu_share"));
  EXPECT_GT(r.metrics.at("gpu_share"), 0.4);
  EXPECT_FALSE(r.capture.is_null()) << "judge returns the capture it judged";
}

TEST(Mode1Cuda, RealH200BenchCapturesPass) {
  // bench: the profiler on (the default); bench-noprofile-*: --profile 0, no kernel names recorded.
  for (const char* name : {"bench", "bench-noprofile-1", "bench-noprofile-2"}) {
    const auto r = judge_h200(name, "python3 bench.py 40000");
    EXPECT_EQ(r.verdict, "pass") << name << ": " << r.summary;
    EXPECT_GT(r.metrics.at("gpu_share"), 0.5) << name;
  }
}

TEST(Mode1Cuda, JudgeTwiceGivesTheSameResponse) {
  const auto a = judge_h200("honest", "python3 honest.py 20");
  const auto b = judge_h200("honest", "python3 honest.py 20");
  EXPECT_EQ(nlohmann::json(a), nlohmann::json(b));
}

TEST(Mode1Cuda, MissingPlannedFlashAttentionFailsOnTheHonestCapture) {
  auto p = plan("python3 honest.py 20");
  p["hazards"].push_back({{"kind", "flash_attn"}, {"severity", "warning"}, {"detail", "uses flash-attn"}});
  const auto r = judge_with_plan(h200_capture("honest"), p);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(check_named(r, "accelerator_components").status, "fail");
}

TEST(Mode1Cuda, LegacyCaptureWithoutFenceIsNotVerified) {
  // The pre-fence collector output (tests/data/h200/mode1-cuda-bundle.txt) is not evidence any more.
  mode1_capture c;
  c.vendor = "nvidia";
  c.collector.exit_code = 0;
  c.collector.stdout_text = read("h200/mode1-cuda-bundle.txt");
  const auto r = judge(c, "python3 workload.py");
  EXPECT_EQ(r.verdict, "not_verified") << r.summary;
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("fence"));
}

// ------------------------------------------------------------------ AMD captures from real outputs

TEST(Mode1Rocm, RealTraceAndKfdHostSamplesPass) {
  amd_capture b;
  b.probe = hip_probe;
  const auto r = judge(b.capture(), "./jacobi -m 1024");
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("9 dispatches"));
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("KFD"));
  EXPECT_THAT(check_named(r, "scale_as_planned").detail, HasSubstr("./jacobi -m 1024"));
}

TEST(Mode1Rocm, CpuProbeFailsEvenWithMarkers) {
  amd_capture b;
  b.trace.clear();
  b.tracer = "none";
  b.probe = cpu_probe;
  b.log = "ROCM_ENV_VERIFIED\nSuccess\nPAPER_RESULT_REPRODUCED\naccuracy: 99.9\n";
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("is_available() was False"));
}

TEST(Mode1Rocm, CudaBuildOfTorchOnAmdFails) {
  amd_capture b;
  b.probe = R"({"pid": 1075718, "torch": {"version": "2.5.1+cu124", "hip": null, "cuda": "12.4"},
               "is_available": false, "initialized": false, "devices": []})";
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("not a HIP build"));
}

TEST(Mode1Rocm, CpuMessageInLogFails) {
  amd_capture b;
  b.probe = hip_probe;
  b.log = "Warning: CUDA not available, running on CPU\nSuccess\n";
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(check_named(r, "no_cpu_fallback").status, "fail");
  EXPECT_EQ(r.verdict, "fail");
}

TEST(Mode1Rocm, NonZeroExitAndTimeoutFail) {
  amd_capture b;
  b.probe = hip_probe;
  b.exit_line = "1 3 1075700 1000 1003";
  auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(check_named(r, "workload_exit").status, "fail");
  EXPECT_EQ(r.verdict, "fail");
  b.exit_line = "124 3600 1075700 1000 4600";
  r = judge(b.capture(), "python train.py");
  EXPECT_THAT(check_named(r, "workload_exit").detail, HasSubstr("did not finish within"));
}

TEST(Mode1Rocm, SdpaInsteadOfFlashAttentionFailsWithD2) {
  amd_capture b;
  b.probe = hip_probe;
  b.trace =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
      "\"End_Timestamp\"\n\"KERNEL_DISPATCH\",\"Agent 4\",1,2,\"void "
      "at::native::_efficient_attention_forward_kernel<float>(Params)\",1,10,20\n";
  auto p = plan("python train.py");
  p["kernel_builds"].push_back({{"kind", "package"}, {"name", "flash-attn"}, {"step", nullptr}, {"note", ""}});
  const auto r = judge_with_plan(b.capture(), p);
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "pass");  // "Agent 4" (ROCm 7 form) is a GPU agent
  EXPECT_EQ(check_named(r, "accelerator_components").status, "fail");
  ASSERT_EQ(r.ledger.size(), 1u);
  EXPECT_EQ(r.ledger[0].level, "D2");
  EXPECT_EQ(r.verdict, "fail");
}

std::string probe_with_code(const std::string& code) {
  std::string p = hip_probe;
  p.pop_back();
  return p + ", \"code\": " + code + "}";
}

const char* rmsnorm_trace =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
    "\"End_Timestamp\"\n\"KERNEL_DISPATCH\",\"Agent 4\",1,2,\"Cijk_Alik_Bljk_SB_MT64x64x16\",1,10,20\n";

nlohmann::json rmsnorm_plan() {
  auto p = plan("python train.py");
  p["kernel_builds"].push_back({{"kind", "setup_extension"},
                                {"name", "fused_rmsnorm._C"},
                                {"module", "fused_rmsnorm._C"},
                                {"step", "build-repository-extensions"},
                                {"note", ""},
                                {"kernels", {"rmsnorm_forward_kernel"}}});
  return p;
}

TEST(Mode1Rocm, ExtensionThatFellBackToPythonFailsThroughJudge) {
  amd_capture b;
  b.trace = rmsnorm_trace;
  b.probe = probe_with_code(
      R"({"extensions": [{"module": "fused_rmsnorm._C", "file": "/w/fused_rmsnorm/_C.cpython-310-x86_64-linux-gnu.so"}],
          "triton": [], "objects": []})");
  const auto r = judge_with_plan(b.capture(), rmsnorm_plan());
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "pass");
  EXPECT_EQ(check_named(r, "accelerator_components").status, "fail");
  ASSERT_EQ(r.ledger.size(), 1u);
  EXPECT_EQ(r.ledger[0].level, "D3");
  EXPECT_EQ(r.verdict, "fail");
}

TEST(Mode1Rocm, ExtensionKernelMappedOnTheGpuPassesThroughJudge) {
  const std::string ext = "/w/fused_rmsnorm/_C.cpython-310-x86_64-linux-gnu.so";
  amd_capture b;
  b.trace = std::string(rmsnorm_trace) +
            "\"KERNEL_DISPATCH\",\"Agent 4\",1,3,\"rmsnorm_forward_kernel(float const*, float*)\",2,30,40\n";
  b.probe = probe_with_code(R"({"extensions": [{"module": "fused_rmsnorm._C", "file": ")" + ext +
                            R"("}], "triton": [], "objects": []})");
  b.host_objects.push_back(ext);
  auto r = judge_with_plan(b.capture(), rmsnorm_plan());
  EXPECT_EQ(check_named(r, "accelerator_components").status, "pass") << check_named(r, "accelerator_components").detail;
  EXPECT_THAT(check_named(r, "accelerator_components").detail, HasSubstr("host: GPU process 2075718 mapped " + ext));
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  // The same run where the host never saw the object mapped: the probe's record alone.
  b.host_objects.pop_back();
  r = judge_with_plan(b.capture(), rmsnorm_plan());
  EXPECT_EQ(check_named(r, "accelerator_components").status, "not_verified");
  EXPECT_NE(r.verdict, "pass");
}

TEST(Mode1Rocm, NoKfdIsNoDeviceNeverPass) {
  amd_capture b;
  b.kfd = "ls: cannot access '/dev/kfd': No such file or directory\n";
  b.probe = hip_probe;
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "no_device");
  EXPECT_EQ(r.summary, "no ROCm device: not verified");
  ASSERT_EQ(r.checks.size(), 6u);
  for (const auto& c : r.checks) EXPECT_EQ(c.status, "not_verified") << c.name;
  EXPECT_FALSE(r.workload.has_value());
}

TEST(Mode1Rocm, RocminfoWithoutGpuAgentIsNoDevice) {
  amd_capture b;
  b.rocminfo =
      "ROCk module is loaded\nAgent 1\n  Name:                    AMD EPYC 7763\n  Device Type:             CPU\n";
  EXPECT_EQ(judge(b.capture(), "python train.py").verdict, "no_device");
}

TEST(Mode1Plan, MissingWorkloadCommandIsAnError) {
  const auto cfg = config("amd");
  EXPECT_THROW(expectations_from_plan({{"workload", nullptr}}, cfg), r2r::sdk::invalid_argument);
  try {
    expectations_from_plan(nlohmann::json::object(), cfg);
    FAIL() << "a plan without workload.command was accepted";
  } catch (const r2r::sdk::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("plan.workload.command"));
  }
}

TEST(Mode1Plan, CustomExtensionAndGlobalNames) {
  auto cfg = config("amd");
  auto p = plan("python train.py");
  p["kernel_builds"].push_back({{"kind", "setup_extension"}, {"name", "my_ops"}, {"step", nullptr}, {"note", ""}});
  auto w = expectations_from_plan(p, cfg);
  EXPECT_TRUE(w.custom_required);
  EXPECT_TRUE(w.custom_kernels.empty());  // no names: nothing to match, the check cannot fail on names
  cfg.custom_kernels = {"rms_kernel"};
  w = expectations_from_plan(p, cfg);
  EXPECT_EQ(w.custom_kernels, std::vector<std::string>{"rms_kernel"});
}

// ------------------------------------------------------------------ through a fake host

TEST(Mode1Verifier, SendsThePlansCommandAndScriptToTheSandboxWithNoSecret) {
  r2r::sdk::testing::fake_host host;
  nlohmann::json seen;
  host.serve("sandbox", [&](const std::string& method, const nlohmann::json& req) {
    EXPECT_EQ(method, "exec");
    seen = req;
    r2r::sdk::sandbox::exec_response out;
    amd_capture b;
    b.probe = hip_probe;
    out.stdout_text = b.capture().collector.stdout_text;
    return nlohmann::json(out);
  });
  auto cfg = config("amd");
  cfg.host_sampler = false;  // this machine has no KFD: the verdict cannot pass without host evidence
  mode1_verifier verifier(cfg, host.sdk_host());
  v::verify_request req;
  req.plan = plan("python train.py --epochs 3");
  req.sandbox = v::sandbox_ref{"sbx1", "/workspace", "img"};
  auto ctx = host.context();
  const auto r = verifier.verify(req, ctx);
  EXPECT_EQ(r.verdict, "not_verified") << r.summary;
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("no host-side GPU sampler ran"));
  EXPECT_EQ(seen.at("sandbox_id"), "sbx1");
  EXPECT_EQ(seen.at("workdir"), "/workspace");
  EXPECT_EQ(seen.at("env").at("R2R_WORKLOAD_CMD"), "python train.py --epochs 3");
  EXPECT_EQ(seen.at("env").at("R2R_WORKLOAD_UID"), "65534");
  EXPECT_FALSE(seen.at("env").contains("R2R_NONCE")) << "no secret travels in the environment";
  EXPECT_THAT(seen.at("command").get<std::string>(), HasSubstr("--kernel-trace --stats --output-format csv"));
  EXPECT_THAT(seen.at("env").at("R2R_PROBE_SOURCE").get<std::string>(), HasSubstr("max_memory_allocated"));
  EXPECT_EQ(seen.at("command").get<std::string>().find("python train.py"), std::string::npos)
      << "the command travels in the environment, never spliced into the script";
  // verify = collect + judge: the capture verify returned, judged again, gives the same response.
  ASSERT_FALSE(r.capture.is_null());
  EXPECT_EQ(r.capture.at("format"), "r2r.mode1.capture/1");
  v::judge_request jr{req.plan, 1, r.capture};
  EXPECT_EQ(nlohmann::json(verifier.judge(jr, ctx)), nlohmann::json(r));
}

TEST(Mode1Config, ProfileIsAutoByDefaultAndAcceptsBooleans) {
  mode1_config c;
  from_json(nlohmann::json::object(), c);
  EXPECT_EQ(c.profile, "auto");
  from_json({{"profile", true}}, c);
  EXPECT_EQ(c.profile, "on");
  from_json({{"profile", false}}, c);
  EXPECT_EQ(c.profile, "off");
  from_json({{"profile", "auto"}}, c);
  EXPECT_EQ(c.profile, "auto");
  try {
    from_json({{"profile", "sometimes"}}, c);
    ADD_FAILURE() << "an unknown profile value must be refused";
  } catch (const r2r::sdk::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected \"auto\", \"on\" or \"off\""));
    EXPECT_THAT(e.what(), HasSubstr("\"sometimes\""));
  }
}

TEST(Mode1Config, AutoProfileAsksForKernelNamesOnlyWhenThePlanNeedsThem) {
  mode1_config c;
  EXPECT_FALSE(kernel_names_needed(expectations_from_plan(plan("python train.py"), c)));
  EXPECT_EQ(collect_env(c, "python train.py", false).at("R2R_NEED_KERNEL_NAMES"), "0");
  EXPECT_EQ(collect_env(c, "python train.py", false).at("R2R_PROBE_PROFILE"), "auto");
  auto p = plan("python train.py");
  p["kernel_builds"].push_back({{"kind", "package"}, {"name", "flash-attn"}, {"step", nullptr}, {"note", ""}});
  EXPECT_TRUE(kernel_names_needed(expectations_from_plan(p, c)));
  c.profile = "off";
  EXPECT_EQ(collect_env(c, "python train.py", true).at("R2R_PROBE_PROFILE"), "0");
}

TEST(Mode1Verifier, NoSandboxIsAnErrorVerdictNotAPass) {
  r2r::sdk::testing::fake_host host;
  mode1_verifier verifier(config("amd"), host.sdk_host());
  v::verify_request req;
  req.plan = plan("python train.py");
  auto ctx = host.context();
  const auto r = verifier.verify(req, ctx);
  EXPECT_EQ(r.verdict, "error");
  EXPECT_FALSE(r.all_checks_passed());
}

TEST(Mode1Verifier, JudgeRejectsAMalformedCaptureClearly) {
  r2r::sdk::testing::fake_host host;
  mode1_verifier verifier(config("nvidia"), host.sdk_host());
  auto ctx = host.context();
  v::judge_request jr{plan("x"), 1, {{"format", "something/9"}}};
  try {
    (void)verifier.judge(jr, ctx);
    ADD_FAILURE() << "expected invalid_argument";
  } catch (const r2r::sdk::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("r2r.mode1.capture/1"));
  }
  jr.capture = nlohmann::json(amd_capture().capture());
  const auto r = verifier.judge(jr, ctx);  // an amd capture on the cuda verifier
  EXPECT_EQ(r.verdict, "error");
  EXPECT_THAT(r.summary, HasSubstr("found a amd capture"));
}

}  // namespace
