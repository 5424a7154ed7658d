// SPDX-License-Identifier: MIT
// Test fixtures for the Mode 1 judge: stored H200 captures, AMD captures assembled from real tool
// outputs (collector sections with a fence, plus host KFD samples), and judge through the
// verifier's own judge method on a fake host.
#pragma once

#include <r2r/verify/capture.hpp>
#include <r2r/verify/mode1.hpp>
#include <r2r/verify/text.hpp>

#include <r2r/sdk/testing/fake_host.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace r2r::plugins::verifier::testdata {

namespace v = r2r::sdk::verifier;

inline std::string read(const std::string& rel) {
  std::ifstream in(std::string(R2R_TEST_DATA) + "/" + rel, std::ios::binary);
  EXPECT_TRUE(in.good()) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
inline std::string body(const std::string& rel) {
  return std::string(strip_source_header(read(rel)));
}

inline const v::check& check_named(const v::verify_response& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return c;
  static const v::check none{"missing", "missing", ""};
  ADD_FAILURE() << "no check " << name;
  return none;
}

inline mode1_config config(const std::string& vendor) {
  mode1_config c;
  c.vendor = vendor;
  return c;
}

inline nlohmann::json plan(const std::string& command) {
  return {{"workload", {{"command", command}, {"kind", "train"}}},
          {"kernel_builds", nlohmann::json::array()},
          {"hazards", nlohmann::json::array()}};
}

/// A capture made on the H200 (tests/data/h200/trust/captures/<name>.capture.json), as JSON.
inline nlohmann::json h200_capture(const std::string& name) {
  return nlohmann::json::parse(read("h200/trust/captures/" + name + ".capture.json"));
}

/// judge through mode1_verifier::judge, the plugin method.
inline v::verify_response judge_with_plan(const nlohmann::json& capture, const nlohmann::json& p,
                                          mode1_config cfg = mode1_config{}) {
  cfg.vendor = capture.value("vendor", std::string("amd"));
  r2r::sdk::testing::fake_host host;
  mode1_verifier verifier(cfg, host.sdk_host());
  auto ctx = host.context();
  return verifier.judge(v::judge_request{p, 1, capture}, ctx);
}
inline v::verify_response judge(const mode1_capture& c, const std::string& command) {
  return judge_with_plan(nlohmann::json(c), plan(command));
}
inline v::verify_response judge_h200(const std::string& name, const std::string& command) {
  return judge_with_plan(h200_capture(name), plan(command));
}

inline const char* hip_probe =
    R"({"pid": 1075718, "ppid": 1075700, "kernels": null, "torch": {"version": "2.5.1+rocm6.2", "hip": "6.2.41133",
        "cuda": null}, "is_available": true, "initialized": true,
        "devices": [{"index": 0, "name": "AMD Instinct MI300X", "arch": "gfx942:sramecc+:xnack-",
                     "max_memory_allocated": 1073741824}]})";
inline const char* cpu_probe =
    R"({"pid": 1075718, "ppid": 1075700, "kernels": null, "torch": {"version": "2.5.1+rocm6.2", "hip": "6.2.41133",
        "cuda": null}, "is_available": false, "initialized": false, "devices": []})";

/// An AMD run as collect.sh/2 prints it, from real rocminfo / rocprofv3 / rocm-smi outputs, and the
/// host KFD samples of the same run: workload pid 1075718 in the sandbox is host pid 2075718.
struct amd_capture {
  std::string fence = "0123456789abcdef0123456789abcdef";
  std::string rocminfo = body("real-outputs/rocminfo/mi300x-gfx942-rocm623-hotaisle.txt");
  std::string kfd = "crw-rw-rw- 1 root root 511, 0 Nov 29 10:00 /dev/kfd\n";
  std::string privdrop = "ok 65534 44,109 setpriv /usr/bin/setpriv";
  std::string pidns = "pid:[4026532201]";
  std::string exit_line = "0 42 1075700 1000 1042";
  std::string tracer = "rocprofv3";
  std::string trace = body("real-outputs/rocprof/rocprofv3-mi300a-openmp-kernel-trace-csv.txt");
  std::string agents = body("real-outputs/rocprof/rocprofv3-mi300a-agent-info-csv.txt");
  std::string probe;
  std::string samples =
      "### sample 0 1000\n### tree 1075700:0 \n### sample 1 1001\n### tree 1075700:65534 "
      "1075718:65534 \n### tool rocm-smi\n" +
      body("real-outputs/rocm-smi/mi300a-showpids-tabs-kfd-open-only.txt");
  std::string log = "epoch 1 loss: 0.5\nROCM_ENV_VERIFIED\nSuccess\n";
  std::string extra;  // raw text appended after the log header line's body (an attack's injection point)
  int busy_samples = 40, idle_samples = 0;
  long long host_pid = 2075718;
  // What the host read from /proc/<host_pid>/maps (reported in the first sample, as the sampler
  // reports each object once per pid).
  std::vector<std::string> host_objects = {"/opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_hip.so",
                                           "/opt/rocm/lib/libamdhip64.so.6"};

  std::string header(const std::string& name) const { return "\n@@R2R-" + fence + " " + name + "\n"; }
  std::string text() const {
    std::string s = "@@R2R-FENCE " + fence + "\n" + header("collector 2 0") + header("tools") +
                    "rocminfo /opt/rocm/bin/rocminfo\n" + header("device_nodes") + kfd + header("rocminfo") + rocminfo +
                    header("device_end") + header("privdrop") + privdrop + "\n" + header("pidns") + pidns + "\n" +
                    header("exit") + exit_line + "\n" + header("sweep") + "0\n" + header("tracer") + tracer + "\n";
    if (!probe.empty()) s += header("probe probe-1075718.json " + std::to_string(probe.size())) + probe;
    if (!trace.empty())
      s += header("trace run_kernel_trace.csv " + std::to_string(trace.size()) + " 10") + trace +
           header("trace run_agent_info.csv " + std::to_string(agents.size())) + agents;
    const std::string shown = log + extra;
    return s + header("samples") + samples +
           header("log " + std::to_string(shown.size()) + " " + std::to_string(shown.size())) + shown;
  }
  mode1_capture capture() const {
    mode1_capture c;
    c.vendor = "amd";
    c.nonce = fence;
    c.collector.exit_code = 0;
    c.collector.stdout_text = text();
    c.host_sampler = true;
    c.host_sampler_note = "KFD sysfs /sys/class/kfd/kfd/proc";
    c.host_interval_s = 1;
    for (int i = 0; i < busy_samples + idle_samples; ++i) {
      host_sample h;
      h.t = 1000.5 + i;
      h.source = "kfd";
      h.kfd = std::to_string(host_pid) + " 1073741824\n";
      h.util = std::string("card1 ") + (i < busy_samples ? "87" : "0") + "\n";
      h.procs.push_back({host_pid, {host_pid, 1075718}, "pid:[4026532201]", 65534, {}, {}, ""});
      if (i == 0) {
        h.procs.back().objects = host_objects;
        h.procs.back().object_ctimes.assign(host_objects.size(), 900);  // installed before the run (t0 1000)
      }
      c.host_samples.push_back(h);
    }
    return c;
  }
};

}  // namespace r2r::plugins::verifier::testdata
