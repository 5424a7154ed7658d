// SPDX-License-Identifier: MIT
// The Mode 1 verdict on real evidence: the H200 capture of collect.sh (tests/data/h200), and AMD
// bundles assembled from real rocminfo / rocprofv3 / rocm-smi outputs (tests/data/real-outputs).
// Also the verifier object through a fake host whose sandbox service returns those outputs.
#include <r2r/verify/mode1.hpp>
#include <r2r/verify/text.hpp>

#include <r2r/sdk/kinds/sandbox.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

using namespace r2r::verify;
using ::testing::HasSubstr;
namespace v = r2r::sdk::verifier;

std::string read(const std::string& rel) {
  std::ifstream in(std::string(R2R_TEST_DATA) + "/" + rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
std::string body(const std::string& rel) {
  return std::string(strip_source_header(read(rel)));
}

const v::check& check_named(const v::verify_response& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return c;
  static const v::check none{"missing", "missing", ""};
  ADD_FAILURE() << "no check " << name;
  return none;
}

mode1_config config(const std::string& vendor) {
  mode1_config c;
  c.vendor = vendor;
  return c;
}

nlohmann::json plan(const std::string& command) {
  return {{"workload", {{"command", command}, {"kind", "train"}}},
          {"kernel_builds", nlohmann::json::array()},
          {"hazards", nlohmann::json::array()}};
}

// ------------------------------------------------------------------ NVIDIA H200 (real capture)

TEST(Mode1Cuda, RealH200RunPasses) {
  const auto cfg = config("nvidia");
  const auto want = expectations_from_plan(plan("python3 workload.py"), cfg);
  const auto r = evaluate_mode1(cfg, want, read("h200/mode1-cuda-bundle.txt"), "h200run1", false);
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  EXPECT_EQ(check_named(r, "workload_exit").status, "pass");
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("torch.profiler"));
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("NVIDIA H200"));
  ASSERT_TRUE(r.workload.has_value());
  EXPECT_EQ(r.workload->exit_code, 0);
  EXPECT_THAT(r.workload->log, HasSubstr("accuracy = 91.5%"));
  bool sampled = false;
  for (const auto& e : r.evidence)
    if (e.kind == "gpu_process") sampled = e.data.at("pids") == nlohmann::json::array({693});
  EXPECT_TRUE(sampled) << "nvidia-smi listed the workload's python process (pid 693)";
}

TEST(Mode1Cuda, RealH200CudnnSdpaIsNotFlashAttention) {
  const auto cfg = config("nvidia");
  auto p = plan("python3 workload.py");
  p["hazards"].push_back(
      {{"kind", "flash_attn"}, {"severity", "warning"}, {"detail", "uses flash-attn"}, {"action", "keep"}});
  const auto want = expectations_from_plan(p, cfg);
  ASSERT_TRUE(want.flash_attention);
  const auto r = evaluate_mode1(cfg, want, read("h200/mode1-cuda-bundle.txt"), "h200run1", false);
  // cuDNN's SDPA "flash fprop" kernels are PyTorch's attention, not the flash_attn library: nothing in
  // the capture attributes them to flash_attn, so the names cannot pass the check.
  EXPECT_EQ(check_named(r, "accelerator_components").status, "not_verified");
  EXPECT_NE(r.verdict, "pass");
}

TEST(Mode1Cuda, MissingCustomKernelFailsWithLedger) {
  auto cfg = config("nvidia");
  cfg.custom_kernels = {"fused_rmsnorm_kernel"};
  const auto want = expectations_from_plan(plan("python3 workload.py"), cfg);
  const auto r = evaluate_mode1(cfg, want, read("h200/mode1-cuda-bundle.txt"), "h200run1", false);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(check_named(r, "accelerator_components").status, "fail");
  ASSERT_EQ(r.ledger.size(), 1u);
  EXPECT_EQ(r.ledger[0].level, "D3");
}

TEST(Mode1Cuda, ForgedNonceSectionsAreIgnored) {
  // The same output read with another nonce has no sections: no device seen -> no_device.
  const auto cfg = config("nvidia");
  const auto r =
      evaluate_mode1(cfg, expectations_from_plan(plan("x"), cfg), read("h200/mode1-cuda-bundle.txt"), "other", false);
  EXPECT_EQ(r.verdict, "no_device");
}

// ------------------------------------------------------------------ AMD bundles from real outputs

struct amd_bundle {
  std::string rocminfo = body("real-outputs/rocminfo/mi300x-gfx942-rocm623-hotaisle.txt");
  std::string kfd = "crw-rw-rw- 1 root root 511, 0 Nov 29 10:00 /dev/kfd\n";
  std::string exit_line = "0 42 1075700";
  std::string tracer = "rocprofv3";
  std::string trace = body("real-outputs/rocprof/rocprofv3-mi300a-openmp-kernel-trace-csv.txt");
  std::string agents = body("real-outputs/rocprof/rocprofv3-mi300a-agent-info-csv.txt");
  std::string probe;
  std::string samples = "### sample 0 1\n### tree 1075700 1075718 \n### tool rocm-smi\n" +
                        body("real-outputs/rocm-smi/mi300a-showpids-tabs-kfd-open-only.txt");
  std::string log = "epoch 1 loss: 0.5\nROCM_ENV_VERIFIED\nSuccess\n";

  std::string text(const std::string& n = "n0") const {
    const std::string m = "\n@@R2R-" + n + " ";
    std::string s = m + "tools\nrocminfo /opt/rocm/bin/rocminfo\n" + m + "device_nodes\n" + kfd + m + "rocminfo\n" +
                    rocminfo + m + "device_end\n" + m + "exit\n" + exit_line + "\n" + m + "tracer\n" + tracer + "\n";
    if (!probe.empty()) s += m + "probe probe-1075718.json\n" + probe + "\n";
    if (!trace.empty()) s += m + "trace run_kernel_trace.csv\n" + trace + m + "trace run_agent_info.csv\n" + agents;
    return s + m + "samples\n" + samples + m + "log\n" + log;
  }
};

const char* hip_probe =
    R"({"pid": 1075718, "ppid": 1075700, "kernels": null, "torch": {"version": "2.5.1+rocm6.2", "hip": "6.2.41133",
        "cuda": null}, "is_available": true, "initialized": true,
        "devices": [{"index": 0, "name": "AMD Instinct MI300X", "arch": "gfx942:sramecc+:xnack-",
                     "max_memory_allocated": 1073741824}]})";
const char* cpu_probe =
    R"({"pid": 1075718, "ppid": 1075700, "kernels": null, "torch": {"version": "2.5.1+rocm6.2", "hip": "6.2.41133",
        "cuda": null}, "is_available": false, "initialized": false, "devices": []})";

TEST(Mode1Rocm, RealTraceAndShowpidsWithMatchingPidPass) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.probe = hip_probe;
  const auto r = evaluate_mode1(cfg, expectations_from_plan(plan("./jacobi -m 1024"), cfg), b.text(), "n0", false);
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("9 kernel dispatches on a GPU agent"));
  EXPECT_THAT(check_named(r, "scale_as_planned").detail, HasSubstr("./jacobi -m 1024"));
  bool pid_seen = false;
  for (const auto& e : r.evidence)
    if (e.kind == "gpu_process") pid_seen = e.data.at("pids") == nlohmann::json::array({1075718});
  EXPECT_TRUE(pid_seen);
}

TEST(Mode1Rocm, ProbeAndSampledPidPassWithoutTracer) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.trace.clear();
  b.tracer = "none";
  b.probe = hip_probe;
  const auto r = evaluate_mode1(cfg, expectations_from_plan(plan("python train.py"), cfg), b.text(), "n0", false);
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("listed by rocm-smi"));
}

TEST(Mode1Rocm, ProbeWithoutSampledPidIsNotEnough) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.trace.clear();
  b.tracer = "none";
  b.probe = hip_probe;
  b.samples = "### sample 0 1\n### tree 1075700 \n### tool rocm-smi\n" +
              body("real-outputs/rocm-smi/mi300a-showpids-tabs-kfd-open-only.txt");  // pid not in the tree
  const auto r = evaluate_mode1(cfg, expectations_from_plan(plan("python train.py"), cfg), b.text(), "n0", false);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "fail");
}

TEST(Mode1Rocm, MarkersPrintedButCpuProbeFails) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.trace.clear();
  b.tracer = "none";
  b.probe = cpu_probe;
  b.samples = "### sample 0 1\n### tree 1075700 1075718 \n";
  b.log = "ROCM_ENV_VERIFIED\nSuccess\nPAPER_RESULT_REPRODUCED\naccuracy: 99.9\n";
  const auto r = evaluate_mode1(cfg, expectations_from_plan(plan("python train.py"), cfg), b.text(), "n0", false);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(check_named(r, "no_cpu_fallback").status, "fail");
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("is_available() was False"));
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "fail");
}

TEST(Mode1Rocm, CudaBuildOfTorchOnAmdFails) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.probe = R"({"pid": 1075718, "torch": {"version": "2.5.1+cu124", "hip": null, "cuda": "12.4"},
               "is_available": false, "initialized": false, "devices": []})";
  const auto r = evaluate_mode1(cfg, expectations_from_plan(plan("python train.py"), cfg), b.text(), "n0", false);
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("not a HIP build"));
}

TEST(Mode1Rocm, CpuMessageInLogFails) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.probe = hip_probe;
  b.log = "Warning: CUDA not available, running on CPU\nSuccess\n";
  const auto r = evaluate_mode1(cfg, expectations_from_plan(plan("python train.py"), cfg), b.text(), "n0", false);
  EXPECT_EQ(check_named(r, "no_cpu_fallback").status, "fail");
  EXPECT_EQ(r.verdict, "fail");
}

TEST(Mode1Rocm, NonZeroExitAndTimeoutFail) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.probe = hip_probe;
  b.exit_line = "1 3 1075700";
  auto r = evaluate_mode1(cfg, expectations_from_plan(plan("python train.py"), cfg), b.text(), "n0", false);
  EXPECT_EQ(check_named(r, "workload_exit").status, "fail");
  EXPECT_EQ(r.verdict, "fail");
  b.exit_line = "124 3600 1075700";
  r = evaluate_mode1(cfg, expectations_from_plan(plan("python train.py"), cfg), b.text(), "n0", false);
  EXPECT_THAT(check_named(r, "workload_exit").detail, HasSubstr("did not finish within"));
}

TEST(Mode1Rocm, SdpaInsteadOfFlashAttentionFailsWithD2) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.probe = hip_probe;
  b.trace =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
      "\"End_Timestamp\"\n\"KERNEL_DISPATCH\",\"Agent 4\",1,2,\"void "
      "at::native::_efficient_attention_forward_kernel<float>(Params)\",1,10,20\n";
  auto p = plan("python train.py");
  p["kernel_builds"].push_back({{"kind", "package"}, {"name", "flash-attn"}, {"step", nullptr}, {"note", ""}});
  const auto r = evaluate_mode1(cfg, expectations_from_plan(p, cfg), b.text(), "n0", false);
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

TEST(Mode1Rocm, ExtensionThatFellBackToPythonFailsThroughTheBundle) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.trace = rmsnorm_trace;
  b.probe = probe_with_code(
      R"({"extensions": [{"module": "fused_rmsnorm._C", "file": "/w/fused_rmsnorm/_C.cpython-310-x86_64-linux-gnu.so"}],
          "triton": [], "objects": []})");
  const auto r = evaluate_mode1(cfg, expectations_from_plan(rmsnorm_plan(), cfg), b.text(), "n0", false);
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "pass");
  EXPECT_EQ(check_named(r, "accelerator_components").status, "fail");
  ASSERT_EQ(r.ledger.size(), 1u);
  EXPECT_EQ(r.ledger[0].level, "D3");
  EXPECT_EQ(r.verdict, "fail");
}

TEST(Mode1Rocm, ExtensionKernelAttributedByTheProbePassesThroughTheBundle) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.trace = std::string(rmsnorm_trace) +
            "\"KERNEL_DISPATCH\",\"Agent 4\",1,3,\"rmsnorm_forward_kernel(float const*, float*)\",2,30,40\n";
  b.probe = probe_with_code(
      R"({"extensions": [{"module": "fused_rmsnorm._C", "file": "/w/fused_rmsnorm/_C.cpython-310-x86_64-linux-gnu.so"}],
          "triton": [], "objects": []})");
  auto r = evaluate_mode1(cfg, expectations_from_plan(rmsnorm_plan(), cfg), b.text(), "n0", false);
  EXPECT_EQ(check_named(r, "accelerator_components").status, "pass") << check_named(r, "accelerator_components").detail;
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  b.probe = hip_probe;  // the same trace without the probe's module record: the name alone
  r = evaluate_mode1(cfg, expectations_from_plan(rmsnorm_plan(), cfg), b.text(), "n0", false);
  EXPECT_EQ(check_named(r, "accelerator_components").status, "not_verified");
  EXPECT_NE(r.verdict, "pass");
}

TEST(Mode1Rocm, NoKfdIsNoDeviceNeverPass) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.kfd = "ls: cannot access '/dev/kfd': No such file or directory\n";
  b.probe = hip_probe;
  const auto r = evaluate_mode1(cfg, expectations_from_plan(plan("python train.py"), cfg), b.text(), "n0", false);
  EXPECT_EQ(r.verdict, "no_device");
  EXPECT_EQ(r.summary, "no ROCm device: not verified");
  ASSERT_EQ(r.checks.size(), 5u);
  for (const auto& c : r.checks) EXPECT_EQ(c.status, "not_verified") << c.name;
  EXPECT_FALSE(r.workload.has_value());
}

TEST(Mode1Rocm, RocminfoWithoutGpuAgentIsNoDevice) {
  const auto cfg = config("amd");
  amd_bundle b;
  b.rocminfo =
      "ROCk module is loaded\nAgent 1\n  Name:                    AMD EPYC 7763\n  Device Type:             CPU\n";
  const auto r = evaluate_mode1(cfg, expectations_from_plan(plan("python train.py"), cfg), b.text(), "n0", false);
  EXPECT_EQ(r.verdict, "no_device");
}

TEST(Mode1Plan, MissingWorkloadCommandIsAnError) {
  const auto cfg = config("amd");
  EXPECT_THROW(expectations_from_plan({{"workload", nullptr}}, cfg), r2r::sdk::invalid_argument);
  try {
    expectations_from_plan(nlohmann::json::object(), cfg);
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

TEST(Mode1Verifier, SendsThePlansCommandAndScriptToTheSandbox) {
  r2r::sdk::testing::fake_host host;
  nlohmann::json seen;
  host.serve("sandbox", [&](const std::string& method, const nlohmann::json& req) {
    EXPECT_EQ(method, "exec");
    seen = req;
    const std::string nonce = req.at("env").at("R2R_NONCE");
    r2r::sdk::sandbox::exec_response out;
    amd_bundle b;
    b.probe = hip_probe;
    out.stdout_text = b.text(nonce);
    return nlohmann::json(out);
  });
  mode1_verifier verifier(config("amd"), host.sdk_host());
  v::verify_request req;
  req.plan = plan("python train.py --epochs 3");
  req.sandbox = v::sandbox_ref{"sbx1", "/workspace", "img"};
  auto ctx = host.context();
  const auto r = verifier.verify(req, ctx);
  EXPECT_EQ(r.verdict, "pass") << r.summary;
  EXPECT_EQ(seen.at("sandbox_id"), "sbx1");
  EXPECT_EQ(seen.at("workdir"), "/workspace");
  EXPECT_EQ(seen.at("env").at("R2R_WORKLOAD_CMD"), "python train.py --epochs 3");
  EXPECT_EQ(seen.at("env").at("R2R_VENDOR"), "amd");
  EXPECT_THAT(seen.at("command").get<std::string>(), HasSubstr("--kernel-trace --stats --output-format csv"));
  EXPECT_THAT(seen.at("env").at("R2R_PROBE_SOURCE").get<std::string>(), HasSubstr("max_memory_allocated"));
  EXPECT_EQ(seen.at("command").get<std::string>().find("python train.py"), std::string::npos)
      << "the command travels in the environment, never spliced into the script";
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

}  // namespace
