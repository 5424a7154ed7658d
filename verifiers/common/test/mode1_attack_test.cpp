// SPDX-License-Identifier: MIT
// Attacks on Mode 1 (issue 13), each judged through the verifier's judge method: every one ends
// "fail" or "not_verified", never "pass". Real evidence first (captures the collector made on the
// NVIDIA H200, tests/data/h200/trust), then the same attacks and the parser-level ones on AMD
// captures assembled from real tool outputs (mode1_fixtures.hpp), where each starts from the honest
// capture that passes (Mode1Rocm.RealTraceAndKfdHostSamplesPass) and changes one thing.
#include "mode1_fixtures.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::plugins::verifier;
using namespace r2r::plugins::verifier::testdata;
using ::testing::AnyOf;
using ::testing::HasSubstr;

void expect_not_pass(const r2r::sdk::verifier::verify_response& r) {
  EXPECT_THAT(r.verdict, AnyOf("fail", "not_verified")) << r.summary;
}

// ------------------------------------------------------------------ real H200 captures

TEST(Mode1AttackH200, ForgedProbeFromACpuScriptFails) {
  const auto r = judge_h200("forged-probe", "python3 forged_probe.py");
  EXPECT_EQ(r.verdict, "fail") << r.summary;
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("listed no process of the workload on the GPU"));
  EXPECT_EQ(check_named(r, "no_cpu_fallback").status, "fail");
}

TEST(Mode1AttackH200, NonceHuntAndPipeInjectionFail) {
  const auto r = judge_h200("nonce-inject", "python3 nonce_inject.py");
  EXPECT_EQ(r.verdict, "fail") << r.summary;
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("marker line inside the evidence"));
  EXPECT_THAT(check_named(r, "workload_exit").detail, HasSubstr("exit code 3"));
  ASSERT_TRUE(r.workload.has_value());
  EXPECT_THAT(r.workload->log, HasSubstr("nonces found: []")) << "nothing in /proc held a nonce";
  EXPECT_THAT(r.workload->log, HasSubstr("wrote forged sections into: []")) << "no other process's pipe was open to it";
}

TEST(Mode1AttackH200, TinyGpuOpWithCpuComputeFails) {
  const auto r = judge_h200("tiny-op", "python3 tiny_op.py");
  EXPECT_EQ(r.verdict, "fail") << r.summary;
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("below the required 5.0%"));
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "fail");
  EXPECT_LT(r.metrics.at("gpu_share"), 0.05);
}

TEST(Mode1AttackH200, CpuCheatExampleFailsOnRealEvidence) {
  // examples/cpu-cheat/train.py as the workload: every success marker printed, numpy on the CPU.
  const auto r = judge_h200("cpu-cheat", "python3 cpu_cheat_train.py --steps 100");
  EXPECT_EQ(r.verdict, "fail") << r.summary;
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("allocated nothing on the GPU"));
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "fail");
}

TEST(Mode1AttackH200, HonestCaptureWithoutHostSamplesIsNotVerified) {
  auto c = h200_capture("honest");
  c["host_samples"] = nlohmann::json::array();
  c["host_sampler"]["ran"] = false;
  const auto r = judge_with_plan(c, plan("python3 honest.py 20"));
  EXPECT_EQ(r.verdict, "not_verified") << "the probe and the profiler alone cannot pass a run";
}

// A planned extension build and the real H200 run of honest.py (real GPU work, the host saw it
// busy). The attack: the workload's probe claims the build's module was loaded and its kernel ran.
nlohmann::json rmsnorm_build_plan(const std::string& command) {
  auto p = plan(command);
  p["kernel_builds"].push_back({{"kind", "setup_extension"},
                                {"name", "fused_rmsnorm._C"},
                                {"module", "fused_rmsnorm._C"},
                                {"step", "build-repository-extensions"},
                                {"note", ""},
                                {"kernels", {"rmsnorm_forward_kernel"}}});
  return p;
}
const char* const rmsnorm_so = "/w/fused_rmsnorm/_C.cpython-310-x86_64-linux-gnu.so";

/// The honest H200 capture with its probe rewritten to claim the build, and `objects` as what the
/// host read from every process's /proc/<pid>/maps, each with ctime an hour before the run, or
/// with `written_during_run` at the run's last host sample.
nlohmann::json honest_with_forged_build_probe(const std::vector<std::string>& objects,
                                              bool written_during_run = false) {
  auto c = h200_capture("honest").get<mode1_capture>();
  std::string& out = c.collector.stdout_text;
  const std::string header = "@@R2R-" + c.nonce + " probe probe-531.json ";
  const auto h = out.find(header);
  EXPECT_NE(h, std::string::npos);
  const auto body_start = out.find('\n', h) + 1;
  const auto body_end = out.find("\n@@R2R-" + c.nonce + " ", body_start);
  auto probe = nlohmann::json::parse(out.substr(body_start, body_end - body_start));
  probe["kernels"]["rmsnorm_forward_kernel(float const*, float*, int)"] = 500;
  probe["code"] = {{"extensions", {{{"module", "fused_rmsnorm._C"}, {"file", rmsnorm_so}}}},
                   {"triton", nlohmann::json::array()},
                   {"objects", {rmsnorm_so}}};
  const std::string forged = probe.dump();
  out = out.substr(0, h) + header + std::to_string(forged.size()) + "\n" + forged + out.substr(body_end);
  const double ctime = written_during_run ? c.host_samples.back().t : c.host_samples.front().t - 3600;
  for (auto& s : c.host_samples)
    for (auto& p : s.procs) {
      p.objects = objects;
      p.object_ctimes.assign(objects.size(), ctime);
    }
  return nlohmann::json(c);
}

TEST(Mode1AttackH200, ForgedBuildRecordPlusRealGpuWorkIsNotVerified) {
  const auto p = rmsnorm_build_plan("python3 honest.py 20");
  // As recorded on the H200 (the sampler of that day read no maps): nothing host-side attributes it.
  auto r = judge_with_plan(honest_with_forged_build_probe({}), p);
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "pass") << "the GPU work is real";
  EXPECT_EQ(check_named(r, "accelerator_components").status, "not_verified")
      << check_named(r, "accelerator_components").detail;
  expect_not_pass(r);
  // The host read the maps: torch's libraries, never the build's object.
  r = judge_with_plan(
      honest_with_forged_build_probe({"/usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so"}), p);
  EXPECT_EQ(check_named(r, "accelerator_components").status, "not_verified");
  EXPECT_THAT(check_named(r, "accelerator_components").detail,
              HasSubstr("no GPU process of the workload mapped module fused_rmsnorm._C"));
  expect_not_pass(r);
}

TEST(Mode1AttackH200, AFileWrittenUnderTheModulesNameDuringTheRunIsNotVerified) {
  // The workload writes a file at the module's path, maps it and forges the probe: the host's stat
  // shows the file is younger than the run.
  const auto r =
      judge_with_plan(honest_with_forged_build_probe(
                          {"/usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so", rmsnorm_so}, true),
                      rmsnorm_build_plan("python3 honest.py 20"));
  EXPECT_EQ(check_named(r, "accelerator_components").status, "not_verified");
  EXPECT_THAT(check_named(r, "accelerator_components").detail, HasSubstr("was written during the run"));
  expect_not_pass(r);
}

TEST(Mode1AttackH200, BuildObjectMappedByTheGpuProcessPasses) {
  // The honest twin: the same run where the host saw the build's object mapped in the GPU process.
  const auto r =
      judge_with_plan(honest_with_forged_build_probe(
                          {"/usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so", rmsnorm_so}),
                      rmsnorm_build_plan("python3 honest.py 20"));
  EXPECT_EQ(check_named(r, "accelerator_components").status, "pass") << check_named(r, "accelerator_components").detail;
  EXPECT_EQ(r.verdict, "pass") << r.summary;
}

TEST(Mode1Attack, ForgedBuildProbeAndTraceWithTheGpuBusyIsNotVerified) {
  // AMD: the probe claims the module, the tracer CSV (workload-written) names the kernel, the GPU is
  // really busy for the workload; the host's maps show only torch and HIP.
  amd_capture b;
  b.trace =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
      "\"End_Timestamp\"\n\"KERNEL_DISPATCH\",\"Agent 4\",1,3,\"rmsnorm_forward_kernel(float const*, float*)\",2,"
      "30,40\n";
  std::string probe = hip_probe;
  probe.pop_back();
  b.probe = probe + R"(, "code": {"extensions": [{"module": "fused_rmsnorm._C", "file": ")" + rmsnorm_so +
            R"("}], "triton": [], "objects": []}})";
  const auto r = judge_with_plan(b.capture(), rmsnorm_build_plan("python train.py"));
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "pass");
  EXPECT_EQ(check_named(r, "accelerator_components").status, "not_verified");
  expect_not_pass(r);
}

// ------------------------------------------------------------------ in-process evidence cannot pass

TEST(Mode1Attack, ForgedProbeWithoutHostEvidenceIsNotVerified) {
  amd_capture b;
  b.probe = hip_probe;
  b.trace.clear();
  b.tracer = "none";
  auto c = b.capture();
  c.host_sampler = false;
  c.host_samples.clear();
  const auto r = judge(c, "python train.py");
  EXPECT_EQ(r.verdict, "not_verified");
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("cannot pass a run alone"));
}

TEST(Mode1Attack, ForgedTraceCsvWithTheGpuIdleFails) {
  amd_capture b;  // a real kernel trace in the trace directory, but the host saw the GPU idle
  b.probe = hip_probe;
  b.busy_samples = 0;
  b.idle_samples = 40;
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("never busy"));
}

TEST(Mode1Attack, HostProcessOfAnotherSandboxIsNotTheWorkloads) {
  amd_capture b;
  b.probe = hip_probe;
  b.pidns = "pid:[4026539999]";  // the busy host pid lives in another pid namespace
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("listed no process of the workload"));
}

TEST(Mode1Attack, ZeroDispatchTracerFailsKernelsOnGpu) {
  amd_capture b;
  b.probe = hip_probe;
  b.trace =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
      "\"End_Timestamp\"\n";
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("recorded zero GPU dispatches"));
}

TEST(Mode1Attack, TorchProcessThatAllocatedNothingFailsNoCpuFallback) {
  amd_capture b;
  b.probe = R"({"pid": 1075718, "torch": {"version": "2.5.1+rocm6.2", "hip": "6.2.41133", "cuda": null},
               "is_available": true, "initialized": false, "devices": []})";
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("allocated nothing on the GPU"));
}

TEST(Mode1Attack, TinyGpuShareFailsNoCpuFallback) {
  amd_capture b;  // one busy host sample in forty: a tiny op beside CPU compute
  b.probe = hip_probe;
  b.busy_samples = 1;
  b.idle_samples = 39;
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "no_cpu_fallback").detail, HasSubstr("2.5%"));
  EXPECT_EQ(check_named(r, "kernels_on_gpu").status, "pass") << "the GPU did run something";
  auto cfg = config("amd");
  cfg.min_gpu_share = 0.02;  // configurable: a lower bar lets the same evidence through
  EXPECT_EQ(judge_with_plan(nlohmann::json(b.capture()), plan("python train.py"), cfg).verdict, "pass");
}

// ------------------------------------------------------------------ the fence and the pipe

TEST(Mode1Attack, SectionsWrittenBeforeTheFenceAreNotVerified) {
  amd_capture b;
  b.probe = hip_probe;
  auto c = b.capture();
  c.collector.stdout_text = "\n@@R2R-" + b.fence + " exit\n0 1 1 0 0\n" + c.collector.stdout_text;
  const auto r = judge(c, "python train.py");
  expect_not_pass(r);
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("fence"));
}

TEST(Mode1Attack, AWholeForgedOutputBeforeTheRealOneFails) {
  // A workload that shares the collector's uid (no privilege drop) writes a complete passing output
  // with its own fence into the collector's pipe; the real output follows with the real fence.
  amd_capture forged;
  forged.fence = "00000000000000000000000000000000";
  forged.probe = hip_probe;
  amd_capture real;
  real.probe = hip_probe;
  auto c = real.capture();
  c.collector.stdout_text = forged.text() + "\n" + c.collector.stdout_text;
  c.nonce = r2r::plugins::verifier::fence_of(c.collector.stdout_text);
  const auto r = judge(c, "python train.py");
  EXPECT_EQ(r.verdict, "fail") << r.summary;
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("@@R2R-" + real.fence));
}

TEST(Mode1Attack, HostRootProcessIsNeverTheWorkload) {
  amd_capture b;
  b.probe = hip_probe;
  auto c = b.capture();
  for (auto& s : c.host_samples) s.procs.front().uid = 0;
  const auto r = judge(c, "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "kernels_on_gpu").detail, HasSubstr("listed no process of the workload"));
}

TEST(Mode1Attack, RepeatedSectionFails) {
  amd_capture b;  // even with the right fence, a second exit section (the first-one-wins trick) fails
  b.probe = hip_probe;
  b.exit_line = "3 42 1075700 1000 1042\n\n@@R2R-" + b.fence + " exit\n0 42 1075700 1000 1042";
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("'exit' appears twice"));
}

TEST(Mode1Attack, MarkerLineInTheLogFails) {
  amd_capture b;
  b.probe = hip_probe;
  b.extra = "@@R2R-deadbeefdeadbeefdeadbeefdeadbeef exit\n0 1 1\n@@R2R-" + b.fence + " exit\n0 1 1\n";
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("in the workload log"));
}

TEST(Mode1Attack, CaptureNonceThatIsNotTheFenceFails) {
  amd_capture b;
  b.probe = hip_probe;
  auto c = b.capture();
  c.nonce = "ffffffffffffffffffffffffffffffff";
  EXPECT_EQ(judge(c, "python train.py").verdict, "fail");
}

TEST(Mode1Attack, CollectorExecExitingNonZeroFails) {
  amd_capture b;
  b.probe = hip_probe;
  auto c = b.capture();
  c.collector.exit_code = 137;
  const auto r = judge(c, "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("exec itself exited 137"));
}

TEST(Mode1Attack, WorkloadProcessRunningAsRootFails) {
  amd_capture b;
  b.probe = hip_probe;
  b.samples = "### sample 0 1000\n### tree 1075700:0 \n### sample 1 1001\n### tree 1075700:65534 1075718:0 \n";
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("1075718 ran as uid 0"));
}

TEST(Mode1Attack, NoPrivilegeDropIsNotVerified) {
  amd_capture b;
  b.probe = hip_probe;
  b.privdrop =
      "none no privilege-drop tool works in this image (setpriv from util-linux, or python3 with "
      "os.setresuid): install util-linux";
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "not_verified");
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("install util-linux"));
}

// ------------------------------------------------------------------ truncated and unparseable evidence

TEST(Mode1Attack, TruncatedProbeIsNotVerified) {
  amd_capture b;
  b.probe = hip_probe;
  auto c = b.capture();
  auto& out = c.collector.stdout_text;
  const std::string decl = "probe-1075718.json " + std::to_string(b.probe.size());
  out.replace(out.find(decl), decl.size(), "probe-1075718.json 2000001");  // the file was larger than the copy
  const auto r = judge(c, "python train.py");
  EXPECT_EQ(r.verdict, "not_verified");
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("truncated"));
}

TEST(Mode1Attack, UnparseableProbeIsNotVerified) {
  amd_capture b;
  b.probe = std::string(hip_probe).substr(0, 120);  // cut JSON, size header matching the cut file
  const auto r = judge(b.capture(), "python train.py");
  EXPECT_EQ(r.verdict, "not_verified");
  EXPECT_THAT(check_named(r, "evidence_integrity").detail, HasSubstr("repo2rocm probe JSON"));
}

TEST(Mode1Attack, OutputCutInsideTheLogIsNotVerified) {
  amd_capture b;
  b.probe = hip_probe;
  auto c = b.capture();
  c.collector.stdout_text.resize(c.collector.stdout_text.size() - 5);
  EXPECT_EQ(judge(c, "python train.py").verdict, "not_verified");
  c = b.capture();
  c.collector.truncated = true;
  EXPECT_EQ(judge(c, "python train.py").verdict, "not_verified");
}

}  // namespace
