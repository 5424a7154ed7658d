// SPDX-License-Identifier: MIT
// Every captured real tool output in tests/data/real-outputs (rocm-errors excepted: the knowledge
// base covers those) and the H200 captures in tests/data/h200 go through the parser for their tool,
// with the key facts each one states asserted. A file without a row here fails AllFilesCovered.
#include <r2r/verify/amd_smi.hpp>
#include <r2r/verify/nvidia_smi.hpp>
#include <r2r/verify/rocm_smi.hpp>
#include <r2r/verify/rocminfo.hpp>
#include <r2r/verify/rocprof.hpp>
#include <r2r/verify/text.hpp>
#include <r2r/verify/torch_output.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using namespace r2r::plugins::verifier;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string read(const std::string& rel) {
  std::ifstream in(std::string(R2R_TEST_DATA) + "/" + rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct sample {
  std::string file;  // relative to tests/data
  std::function<void(const std::string&)> check;
};

double gib(double bytes) {
  return bytes / 1073741824.0;
}

const std::vector<sample>& samples() {
  static const std::vector<sample> all = {
      // ---------------------------------------------------------------- rocminfo
      {"real-outputs/rocminfo/mi210-8gpu-docker-ansi-rocprof-sysinfo.txt",
       [](const std::string& t) {
         const auto r = parse_rocminfo(t);
         EXPECT_TRUE(r.rock_loaded);  // inside ESC[37m ... ESC[0m
         ASSERT_EQ(r.agents.size(), 3u);
         EXPECT_EQ(r.agents[0].device_type, "CPU");
         EXPECT_EQ(r.agents[0].compute_units, 64);
         ASSERT_EQ(r.gpus().size(), 1u);
         EXPECT_EQ(r.gpus()[0].name, "gfx90a");
         EXPECT_EQ(r.gpus()[0].marketing_name, "AMD Instinct MI210");
         EXPECT_EQ(r.gpus()[0].compute_units, 104);
         EXPECT_EQ(r.gpus()[0].number, 3);
       }},
      {"real-outputs/rocminfo/mi210-gfx90a-rocm571-padded.txt",
       [](const std::string& t) {
         const auto r = parse_rocminfo(t);
         ASSERT_EQ(r.agents.size(), 3u);
         EXPECT_EQ(r.agents[1].name, "AMD EPYC 7763 64-Core Processor");
         ASSERT_EQ(r.gpus().size(), 1u);
         EXPECT_EQ(r.gpus()[0].name, "gfx90a");  // trailing padding trimmed
         EXPECT_EQ(r.gpus()[0].compute_units, 104);
       }},
      {"real-outputs/rocminfo/mi250x-gcd-gfx90a-lumi-docker-rocm57.txt",
       [](const std::string& t) {
         const auto r = parse_rocminfo(t);
         ASSERT_EQ(r.agents.size(), 2u);
         EXPECT_EQ(r.gpus()[0].number, 5);
         EXPECT_EQ(r.gpus()[0].marketing_name, "AMD Instinct MI250X");
         EXPECT_EQ(r.gpus()[0].compute_units, 110);
       }},
      {"real-outputs/rocminfo/mi300x-gfx942-rocm623-hotaisle.txt",
       [](const std::string& t) {
         const auto r = parse_rocminfo(t);
         ASSERT_EQ(r.agents.size(), 3u);
         EXPECT_EQ(r.gpus()[0].name, "gfx942");
         EXPECT_EQ(r.gpus()[0].marketing_name, "AMD Instinct MI300X");
         EXPECT_EQ(r.gpus()[0].compute_units, 304);
       }},
      {"real-outputs/rocminfo/mi300x-vf-gfx942-rocm640-complete.txt",
       [](const std::string& t) {
         const auto r = parse_rocminfo(t);
         ASSERT_EQ(r.agents.size(), 2u);
         EXPECT_EQ(r.agents[0].compute_units, 13);
         EXPECT_EQ(r.gpus()[0].marketing_name, "AMD Instinct MI300X VF");
         EXPECT_EQ(r.gpus()[0].name, "gfx942");  // not the nested gfx9-4-generic ISA name
       }},
      {"real-outputs/rocminfo/mi350x-gfx950-grep-lines-flattened-rocm702.txt",
       [](const std::string& t) {
         const auto r = parse_rocminfo(t);
         ASSERT_EQ(r.gpus().size(), 1u);
         EXPECT_EQ(r.gpus()[0].name, "gfx950");
         EXPECT_EQ(r.gpus()[0].marketing_name, "AMD Instinct MI350X");
       }},
      {"real-outputs/rocminfo/rx7900xtx-gfx1100-rocm622-complete.txt",
       [](const std::string& t) {
         const auto r = parse_rocminfo(t);
         ASSERT_EQ(r.agents.size(), 2u);
         EXPECT_EQ(r.gpus()[0].name, "gfx1100");
         EXPECT_EQ(r.gpus()[0].marketing_name, "Radeon RX 7900 XTX");
         EXPECT_EQ(r.gpus()[0].uuid, "GPU-dd12161dec38e7a2");
         EXPECT_EQ(r.gpus()[0].compute_units, 96);
       }},
      // ---------------------------------------------------------------- rocm-smi
      {"real-outputs/rocm-smi/mi210-4gpu-concise-rocm571.txt",
       [](const std::string& t) {
         const auto rows = parse_rocm_smi_concise(t);
         ASSERT_EQ(rows.size(), 4u);
         EXPECT_EQ(rows[3].device, 3);
         EXPECT_EQ(rows[0].vram_percent, "0%");
       }},
      {"real-outputs/rocm-smi/mi210-showpids-tabs-opencl-work-and-unknown.txt",
       [](const std::string& t) {
         const auto p = parse_rocm_smi_showpids(t);
         ASSERT_EQ(p.size(), 2u);  // two runs, one block each
         EXPECT_EQ(p[0].pid, 2254756);
         EXPECT_EQ(p[0].name, "work");
         EXPECT_EQ(p[0].vram_bytes, 356581376.0);
         EXPECT_EQ(p[0].cu_occupancy, 9);
         EXPECT_EQ(p[1].pid, 2674551);
         EXPECT_FALSE(p[1].vram_bytes.has_value());  // UNKNOWN inside the container
         EXPECT_FALSE(p[1].sdma.has_value());
       }},
      {"real-outputs/rocm-smi/mi250x-showproductname-json-hpe.txt",
       [](const std::string& t) {
         const auto p = parse_rocm_smi_productname(t);
         ASSERT_EQ(p.size(), 1u);
         EXPECT_EQ(p[0].card, "card0");
         EXPECT_EQ(p[0].series, "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2");
         EXPECT_EQ(p[0].model, "0x7408");
         EXPECT_EQ(p[0].gfx_version, "gfx9010");
       }},
      {"real-outputs/rocm-smi/mi300a-4gpu-concise-rocprofiler-sdk-docs.txt",
       [](const std::string& t) {
         const auto rows = parse_rocm_smi_concise(t);
         ASSERT_EQ(rows.size(), 4u);
         EXPECT_EQ(rows[2].device, 2);
         EXPECT_EQ(rows[2].gpu_percent, "0%");
       }},
      {"real-outputs/rocm-smi/mi300a-showpids-tabs-kfd-open-only.txt",
       [](const std::string& t) {
         const auto p = parse_rocm_smi_showpids(t);
         ASSERT_EQ(p.size(), 1u);
         EXPECT_EQ(p[0].pid, 1075718);
         EXPECT_EQ(p[0].name, "kfd_open");
         EXPECT_EQ(p[0].vram_bytes, 0.0);
       }},
      {"real-outputs/rocm-smi/mi300x-8gpu-concise-after-hang.txt",
       [](const std::string& t) {
         const auto rows = parse_rocm_smi_concise(t);  // caret-notation ANSI in the sub-header
         ASSERT_EQ(rows.size(), 8u);
         EXPECT_EQ(rows[1].vram_percent, "75%");
         EXPECT_EQ(rows[5].vram_percent, "1%");
       }},
      {"real-outputs/rocm-smi/mi300x-8gpu-concise-vllm-405b-loaded.txt",
       [](const std::string& t) {
         const auto rows = parse_rocm_smi_concise(t);
         ASSERT_EQ(rows.size(), 8u);
         EXPECT_EQ(rows[0].vram_percent, "71%");
         EXPECT_EQ(rows[7].gpu_percent, "0%");
       }},
      {"real-outputs/rocm-smi/mi300x-showproductname-tabs-rocm-blog.txt",
       [](const std::string& t) {
         const auto p = parse_rocm_smi_productname(t);
         ASSERT_EQ(p.size(), 1u);
         EXPECT_EQ(p[0].card, "GPU[0]");
         EXPECT_EQ(p[0].series, "AMD Instinct MI300X OAM");
         EXPECT_EQ(p[0].sku, "MI3SRIOV");
         EXPECT_EQ(p[0].gfx_version, "gfx942");
       }},
      {"real-outputs/rocm-smi/rx7900xt-showproductname-showuse-meminfo-csv-json.txt",
       [](const std::string& t) {
         const std::string body(strip_source_header(t));
         const std::size_t json_at = body.find("\n{");
         ASSERT_NE(json_at, std::string::npos);
         const auto csv = parse_rocm_smi_productname(body.substr(0, json_at));
         const auto json = parse_rocm_smi_productname(body.substr(json_at + 1));
         ASSERT_EQ(csv.size(), 1u);
         ASSERT_EQ(json.size(), 1u);
         EXPECT_EQ(csv[0].series, "Radeon RX 7900 XT");
         EXPECT_EQ(csv[0].gfx_version, "gfx1100");
         EXPECT_EQ(json[0].model, "0x744c");
         EXPECT_EQ(json[0].vendor, "Advanced Micro Devices, Inc. [AMD/ATI]");
         EXPECT_EQ(csv[0].vendor, "Advanced Micro Devices Inc. [AMD/ATI]");
       }},
      {"real-outputs/rocm-smi/showpids-pt-main-thread-177GB.txt",
       [](const std::string& t) {
         const auto p = parse_rocm_smi_showpids(t);  // spaces, not tabs
         ASSERT_EQ(p.size(), 8u);
         EXPECT_EQ(p[2].pid, 1168514);
         EXPECT_EQ(p[2].name, "pt_main_thread");
         EXPECT_EQ(p[2].gpu, "1");
         EXPECT_NEAR(gib(*p[2].vram_bytes), 165.2, 0.1);
         EXPECT_EQ(p[2].cu_occupancy, 4);
       }},
      // ---------------------------------------------------------------- amd-smi
      {"real-outputs/amd-smi/gfx1151-default-processes-box-rocm79.txt",
       [](const std::string& t) {
         const auto p = parse_amd_smi_process(t);
         ASSERT_EQ(p.size(), 2u);
         EXPECT_EQ(p[0].pid, 1099588);
         EXPECT_EQ(p[1].pid, 1101814);
         EXPECT_EQ(p[1].name, "python3.12");
         EXPECT_NEAR(*p[1].vram_bytes, 394.5 * 1024, 1);
       }},
      {"real-outputs/amd-smi/mi300x-list-text.txt",
       [](const std::string& t) {
         const auto g = parse_amd_smi_list(t);
         ASSERT_EQ(g.size(), 3u);
         EXPECT_EQ(g[1].bdf, "0000:26:00.0");
         EXPECT_EQ(g[2].uuid, "97ff74a1-0000-1000-8065-fa81273af9ce");
       }},
      {"real-outputs/amd-smi/mi300x-monitor-putm.txt",
       [](const std::string& t) {
         const auto rows = parse_amd_smi_monitor(t);
         ASSERT_EQ(rows.size(), 8u);
         EXPECT_EQ(rows[0].at("GFX_UTIL"), "83 %");
         EXPECT_EQ(rows[0].at("POWER"), "182 W");
         EXPECT_EQ(rows[1].at("GFX_CLOCK"), "358 MHz");
       }},
      {"real-outputs/amd-smi/mi300x-process-csv-pt-main-thread.txt",
       [](const std::string& t) {
         const auto p = parse_amd_smi_process(t);
         ASSERT_EQ(p.size(), 8u);
         EXPECT_EQ(p[0].pid, 207590);
         EXPECT_EQ(p[0].name, "pt_main_thread");
         EXPECT_EQ(p[3].gpu, "3");
         EXPECT_EQ(p[3].vram_bytes, 7822258176.0);
       }},
      {"real-outputs/amd-smi/mi300x-process-text-pt-main-thread.txt",
       [](const std::string& t) {
         const auto p = parse_amd_smi_process(t);
         ASSERT_EQ(p.size(), 2u);
         EXPECT_EQ(p[1].pid, 207591);
         EXPECT_EQ(p[1].gpu, "1");
         EXPECT_NEAR(gib(*p[0].vram_bytes), 7.3, 1e-9);
       }},
      {"real-outputs/amd-smi/mi300x-static-json-jq-vram.txt",
       [](const std::string& t) {
         const auto j = nlohmann::json::parse(strip_source_header(t));
         EXPECT_EQ(j.at("type"), "HBM");
         EXPECT_EQ(j.at("size").at("value"), 196592);
       }},
      {"real-outputs/amd-smi/mi300x-static-text-truncated.txt",
       [](const std::string& t) {
         const auto kv = parse_amd_smi_key_values(t);
         EXPECT_THAT(kv,
                     ::testing::Contains(std::pair<std::string, std::string>{"GPU 0/ASIC/MARKET_NAME", "MI300X-O"}));
         EXPECT_THAT(kv, ::testing::Contains(std::pair<std::string, std::string>{"GPU 0/BUS/BDF", "0000:05:00.0"}));
         EXPECT_THAT(kv, ::testing::Contains(std::pair<std::string, std::string>{"GPU 0/ASIC/DEVICE_ID", "0x74a1"}));
       }},
      {"real-outputs/amd-smi/mi300x-vf-monitor-process.txt",
       [](const std::string& t) {
         const auto p = parse_amd_smi_process(t);
         ASSERT_EQ(p.size(), 1u);
         EXPECT_EQ(p[0].pid, 2266127);
         EXPECT_EQ(p[0].name, "");  // N/A: not in the render/video groups
         EXPECT_NEAR(gib(*p[0].vram_bytes), 2.8, 1e-9);
         const auto m = parse_amd_smi_monitor(t);
         ASSERT_GE(m.size(), 1u);
         EXPECT_EQ(m[0].at("VRAM_USAGE"), "3.1/191.7 GB");
       }},
      {"real-outputs/amd-smi/mi300x-vf-process-text-name-na.txt",
       [](const std::string& t) {
         const auto p = parse_amd_smi_process(t);
         ASSERT_EQ(p.size(), 1u);
         EXPECT_EQ(p[0].pid, 2266127);
         EXPECT_EQ(p[0].name, "");
         EXPECT_NEAR(gib(*p[0].vram_bytes), 1.9, 1e-9);
       }},
      {"real-outputs/amd-smi/wsl-rx9060xt-amd-smi-version-no-driver-rocm702.txt",
       [](const std::string& t) {
         const auto v = parse_amd_smi_version(t);
         EXPECT_EQ(v.rocm, "7.0.2");
         EXPECT_EQ(v.tool, "26.0.2+39589fda");
         EXPECT_EQ(v.errors.size(), 3u);
         EXPECT_THAT(v.errors[0], HasSubstr("driver not initialized"));
       }},
      // ---------------------------------------------------------------- rocprof
      {"real-outputs/rocprof/rocprofv1-console-counters-pytorch-mi210.txt",
       [](const std::string& t) {
         const auto c = parse_rocprof_console(t);
         EXPECT_EQ(c.rocm_path, "/opt/rocm-6.0.0");
         EXPECT_EQ(c.profiled, "\"python\" \"../vector_addition.py\"");
         EXPECT_EQ(c.metric_count, 2);
         EXPECT_THAT(c.metrics, ElementsAre("GRBM_COUNT", "MemUnitStalled"));
         EXPECT_THAT(c.program_output, ::testing::Contains("tensor([2, 4, 6], device='cuda:0')"));
       }},
      {"real-outputs/rocprof/rocprofv1-console-hsa-trace-pytorch-mi210.txt",
       [](const std::string& t) {
         const auto c = parse_rocprof_console(t);
         EXPECT_EQ(c.metric_count, 0);
         EXPECT_THAT(c.metrics, ElementsAre("HSA-trace(*)", "HSA-activity-trace()"));
         EXPECT_EQ(c.result_dir, "/tmp/rpl_data_240229_171038_12/input_results_240229_171038");
       }},
      {"real-outputs/rocprof/rocprofv1-mi210-pytorch-hip-stats-csv.txt",
       [](const std::string& t) {
         const auto s = parse_stats_csv(t);
         ASSERT_EQ(s.size(), 14u);
         EXPECT_EQ(s[0].name, "hipMemcpyWithStream");
         EXPECT_EQ(s[0].calls, 6);
         EXPECT_EQ(s[1].name, "hipLaunchKernel");
       }},
      {"real-outputs/rocprof/rocprofv1-mi210-pytorch-hsa-trace-results-csv.txt",
       [](const std::string& t) {
         const auto d = parse_kernel_trace_csv(t);
         ASSERT_EQ(d.size(), 1u);
         EXPECT_EQ(d[0].name, "elementwise_kernel");
         EXPECT_EQ(d[0].agent, 2);
         EXPECT_EQ(d[0].pid, 33);
         EXPECT_EQ(d[0].end_ns - d[0].start_ns, 7840);
       }},
      {"real-outputs/rocprof/rocprofv1-mi210-pytorch-results-stats-csv.txt",
       [](const std::string& t) {
         const auto s = parse_stats_csv(t);
         ASSERT_EQ(s.size(), 1u);
         EXPECT_EQ(s[0].name, "elementwise_kernel");
         EXPECT_EQ(s[0].total_ns, 5280);
       }},
      {"real-outputs/rocprof/rocprofv3-docs-kernel-trace-csv-stream-id.txt",
       [](const std::string& t) {
         const auto d = parse_kernel_trace_csv(t);
         ASSERT_EQ(d.size(), 8u);
         EXPECT_EQ(d[0].name, "void addition_kernel<float>(float*, float const*, float const*, int, int)");
         EXPECT_EQ(d[0].agent, 2);
         EXPECT_EQ(d[4].stream, 2);
         EXPECT_EQ(d[0].end_ns - d[0].start_ns, 16157);
       }},
      {"real-outputs/rocprof/rocprofv3-docs-summary-kernel-dispatch-S.txt",
       [](const std::string& t) {
         const auto s = parse_summary_table(t);
         ASSERT_EQ(s.size(), 6u);
         EXPECT_EQ(s[0].domain, "KERNEL_DISPATCH");
         EXPECT_EQ(s[0].calls, 8);
         EXPECT_EQ(s[0].total_ns, 184324);
         EXPECT_EQ(s[4].domain, "MEMORY_COPY");
         EXPECT_EQ(s[4].name, "MEMORY_COPY_HOST_TO_DEVICE");
       }},
      {"real-outputs/rocprof/rocprofv3-mi300a-agent-info-csv.txt",
       [](const std::string& t) {
         const auto a = parse_agent_info_csv(t);
         ASSERT_EQ(a.size(), 7u);  // 4 CPU agents and the first 3 of the 4 GPUs (excerpt)
         EXPECT_EQ(a[0].type, "CPU");
         EXPECT_EQ(a[4].type, "GPU");
         EXPECT_EQ(a[4].node_id, 4);
         EXPECT_EQ(a[4].name, "gfx942");
         EXPECT_EQ(a[6].node_id, 6);
         EXPECT_EQ(a[6].product, "AMD Instinct MI300A");
       }},
      {"real-outputs/rocprof/rocprofv3-mi300a-openmp-kernel-stats-csv.txt",
       [](const std::string& t) {
         const auto s = parse_stats_csv(t);
         ASSERT_EQ(s.size(), 4u);
         EXPECT_EQ(s[0].calls, 1001);
         EXPECT_EQ(s[3].name, "__omp_offloading_32_2f3c0__QMboundary_modPboundary_conditions_l24");
       }},
      {"real-outputs/rocprof/rocprofv3-mi300a-openmp-kernel-trace-csv.txt",
       [](const std::string& t) {
         const auto d = parse_kernel_trace_csv(t);  // no Stream_Id column
         ASSERT_EQ(d.size(), 9u);
         EXPECT_EQ(d[0].agent, 4);
         EXPECT_FALSE(d[0].stream.has_value());
         EXPECT_EQ(d[1].name, "__omp_offloading_32_2f3c3__QMlaplacian_modPlaplacian_l23");
       }},
      {"real-outputs/rocprof/rocprofv3-pytorch-resnet-kernel-stats-mpi-rccl.txt",
       [](const std::string& t) {
         const auto s = parse_stats_csv(t);
         ASSERT_EQ(s.size(), 9u);
         EXPECT_EQ(s[0].name, "rccl_main_kernel(ncclDevComm*, unsigned long, ncclWork*)");
         EXPECT_EQ(s[0].calls, 142);
         EXPECT_DOUBLE_EQ(s[0].percent, 82.74);
       }},
      {"real-outputs/rocprof/rocprofv3-pytorch-resnet-kernel-stats-single-gpu.txt",
       [](const std::string& t) {
         const auto s = parse_stats_csv(t);
         ASSERT_EQ(s.size(), 9u);
         EXPECT_EQ(s[1].name, "MIOpenBatchNormBwdSpatial");
         EXPECT_EQ(s[8].calls, 462);
       }},
      // ---------------------------------------------------------------- torch (ROCm)
      {"real-outputs/torch-rocm/mi210-2gpu-get-device-name-generic-amd-radeon-graphics.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);
         EXPECT_EQ(f.device_count, 2);
         EXPECT_THAT(f.device_names, ElementsAre("AMD Radeon Graphics", "AMD Radeon Graphics"));
       }},
      {"real-outputs/torch-rocm/mi300x-2gpu-get-device-properties-jade.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);
         EXPECT_EQ(f.version, "2.3.0a0+gitd2f9472");
         EXPECT_EQ(f.device_count, 2);
         EXPECT_THAT(f.archs, ElementsAre("gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-"));
         EXPECT_EQ(f.device_names.size(), 2u);
       }},
      {"real-outputs/torch-rocm/mi300x-4gpu-get-device-name-jade-ptsanitycheck.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);
         EXPECT_EQ(f.version, "2.3.0a0+gitd2f9472");
         EXPECT_EQ(f.is_available, true);
         EXPECT_EQ(f.device_count, 4);
         ASSERT_FALSE(f.device_names.empty());
         EXPECT_EQ(f.device_names[0], "AMD Instinct MI300X");
       }},
      {"real-outputs/torch-rocm/mi300x-8gpu-vllm-collect-env-rocm62.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);
         EXPECT_EQ(f.version, "2.5.0a0+gitcedc116");
         EXPECT_EQ(f.hip, "6.2.41133-dd7f95766");
         EXPECT_EQ(f.cuda, "");
         EXPECT_EQ(f.is_available, true);
         EXPECT_THAT(f.archs, ::testing::Contains("gfx942:sramecc+:xnack-"));
       }},
      {"real-outputs/torch-rocm/mi300x-collect-env-torch291-rocm713-excerpt.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);
         EXPECT_EQ(f.version, "2.9.1+rocm7.13.0a20260401");
         EXPECT_EQ(f.hip, "7.13.60800-96e30b429c");
         EXPECT_THAT(f.device_names, ::testing::Contains("AMD Instinct MI300X"));
       }},
      {"real-outputs/torch-rocm/mi300x-get-device-properties-torch26-uuid-l2.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);  // the repr wraps over four lines
         EXPECT_THAT(f.device_names, ElementsAre("AMD Instinct MI300X"));
         EXPECT_THAT(f.archs, ElementsAre("gfx942:sramecc+:xnack-"));
       }},
      {"real-outputs/torch-rocm/mi350x-hipDeviceGetName-empty-inside-docker.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);  // the second listing (inside docker) has empty names
         EXPECT_EQ(f.device_count, 8);
         ASSERT_EQ(f.device_names.size(), 8u);
         EXPECT_EQ(f.device_names[0], "");
       }},
      {"real-outputs/torch-rocm/torch-rocm-wheels-get-arch-list.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);
         ASSERT_GE(f.arch_list.size(), 7u);
         EXPECT_EQ(f.arch_list[0], "gfx900");
         EXPECT_THAT(f.arch_list, ::testing::Contains("gfx1201"));
         EXPECT_THAT(f.arch_list, ::testing::Contains("gfx942"));
       }},
      {"real-outputs/torch-rocm/torch-version-hip-repl-rocm30.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);
         EXPECT_EQ(f.hip, "3.0.19493-36529b1");
       }},
      // ---------------------------------------------------------------- NVIDIA
      {"real-outputs/nvidia-smi/h100-8gpu-vllm-collect-env.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);
         EXPECT_EQ(f.version, "2.5.1+cu124");
         EXPECT_EQ(f.cuda, "12.4");
         EXPECT_EQ(f.hip, "");
         ASSERT_EQ(f.device_names.size(), 8u);
         EXPECT_EQ(f.device_names[7], "NVIDIA H100 80GB HBM3");
       }},
      {"real-outputs/nvidia-smi/h100-8gpu-vllm-loaded-empty-process-table.txt",
       [](const std::string& t) {
         const auto s = parse_nvidia_smi_table(t);
         EXPECT_EQ(s.driver_version, "550.90.12");
         EXPECT_EQ(s.cuda_version, "12.4");
         ASSERT_EQ(s.gpus.size(), 8u);
         EXPECT_EQ(s.gpus[0].memory_used_mib, 72770);
         EXPECT_TRUE(s.processes_section);
         EXPECT_TRUE(s.processes.empty());  // busy inside a container, yet no rows
       }},
      {"real-outputs/nvidia-smi/h200-nvidia-smi-table-busy.txt",
       [](const std::string& t) {
         const auto s = parse_nvidia_smi_table(t);
         ASSERT_EQ(s.gpus.size(), 1u);
         EXPECT_EQ(s.gpus[0].name, "NVIDIA H200");
         EXPECT_EQ(s.gpus[0].utilization, "100%");
         ASSERT_EQ(s.processes.size(), 1u);
         EXPECT_EQ(s.processes[0].pid, 417);
         EXPECT_EQ(s.processes[0].name, "python3");
         EXPECT_EQ(s.processes[0].vram_bytes, 1002.0 * 1048576);
       }},
      {"real-outputs/nvidia-smi/h200-query-compute-apps-busy.txt",
       [](const std::string& t) {
         const auto p = parse_nvidia_smi_compute_apps(t);
         ASSERT_EQ(p.size(), 1u);
         EXPECT_EQ(p[0].pid, 417);
         EXPECT_EQ(p[0].vram_bytes, 1002.0 * 1048576);
       }},
      {"real-outputs/nvidia-smi/h200-query-compute-apps-idle.txt",
       [](const std::string& t) { EXPECT_TRUE(parse_nvidia_smi_compute_apps(t).empty()); }},
      {"real-outputs/nvidia-smi/h200-query-gpu-busy.txt",
       [](const std::string& t) {
         const auto q = parse_nvidia_smi_query_csv(t);
         ASSERT_EQ(q.rows.size(), 1u);
         EXPECT_EQ(q.rows[0][*q.column({"name"})], "NVIDIA H200");
         EXPECT_EQ(q.rows[0][*q.column({"utilization.gpu [%]"})], "100 %");
       }},
      {"real-outputs/nvidia-smi/h200-torch-device-and-profiler.txt",
       [](const std::string& t) {
         const auto f = parse_torch_text(t);
         EXPECT_EQ(f.version, "2.11.0+cu130");
         EXPECT_EQ(f.cuda, "13.0");
         EXPECT_EQ(f.hip, "");
         EXPECT_EQ(f.is_available, true);
         const auto rows = parse_profiler_table(t);
         ASSERT_EQ(rows.size(), 15u);
         EXPECT_EQ(rows[3].name.substr(0, 26), "fmha_cutlassF_f32_aligned_");
         EXPECT_TRUE(rows[3].device);
         EXPECT_EQ(rows[3].calls, 3);
         EXPECT_FALSE(rows[12].device);
       }},
      {"real-outputs/nvidia-smi/query-compute-apps-gpu-uuid-process-name-vgpu.txt",
       [](const std::string& t) {
         const auto p = parse_nvidia_smi_compute_apps(t);
         ASSERT_EQ(p.size(), 3u);
         EXPECT_EQ(p[0].name, "vgpu");
         EXPECT_EQ(p[0].gpu, "GPU-d0180485-9584-433c-6782-c335d5df2cb3");
         EXPECT_EQ(p[0].pid, -1);  // not in this field set
       }},
      {"h200/nvidia-smi-after-run.txt",
       [](const std::string& t) {
         const auto s = parse_nvidia_smi_table(t);
         EXPECT_EQ(s.driver_version, "580.159.04");
         ASSERT_EQ(s.gpus.size(), 1u);
         EXPECT_TRUE(s.processes.empty());
       }},
  };
  return all;
}

class RealOutput : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RealOutput, ParsesWithKeyFacts) {
  const auto& s = samples()[GetParam()];
  SCOPED_TRACE(s.file);
  const std::string text = read(s.file);
  ASSERT_FALSE(text.empty()) << "missing test data " << s.file;
  s.check(text);
}

INSTANTIATE_TEST_SUITE_P(Samples, RealOutput, ::testing::Range<std::size_t>(0, samples().size()),
                         [](const auto& param_info) {
                           std::string n = fs::path(samples()[param_info.param].file).stem().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(RealOutput, AllFilesCovered) {
  std::set<std::string> listed;
  for (const auto& s : samples()) listed.insert(s.file);
  for (const auto& e : fs::recursive_directory_iterator(std::string(R2R_TEST_DATA) + "/real-outputs")) {
    if (!e.is_regular_file() || e.path().filename() == "INDEX.md") continue;
    const std::string rel = fs::relative(e.path(), R2R_TEST_DATA).string();
    if (rel.starts_with("real-outputs/rocm-errors/")) continue;
    EXPECT_TRUE(listed.contains(rel)) << rel << " has no parser row in real_outputs_test.cpp";
  }
}

}  // namespace
