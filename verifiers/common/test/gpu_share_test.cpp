// SPDX-License-Identifier: MIT
// The host sampler and GPU-share attribution: real nvidia-smi pmon / compute-apps text from the H200
// captures, a sampler run against a stand-in nvidia-smi found only by absolute host directory, and
// attribution by pid namespace and NSpid.
#include "mode1_fixtures.hpp"

#include <r2r/verify/gpu_share.hpp>
#include <r2r/verify/host_sampler.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace {

using namespace r2r::verify;
using namespace r2r::verify::testdata;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

TEST(GpuShare, RealH200PmonRowsAttributeTheWorkload) {
  const auto c = h200_capture("honest").get<mode1_capture>();
  ASSERT_FALSE(c.host_samples.empty());
  workload_identity who;
  for (const auto& s : c.host_samples)
    for (const auto& p : s.procs) {
      who.pidns = p.pidns;
      who.pids.insert(p.nspid.back());
    }
  const auto g = measure_gpu_share(c.host_samples, who, 0, 0);
  EXPECT_GT(g.active, 0);
  EXPECT_EQ(g.source, "nvidia-smi pmon sm% of the workload's processes");
  EXPECT_GT(g.max_vram_bytes, 512.0 * (1 << 20));
  workload_identity stranger = who;
  stranger.pidns = "pid:[1]";
  EXPECT_EQ(measure_gpu_share(c.host_samples, stranger, 0, 0).attributed, 0);
}

TEST(GpuShare, UtilisationFallbackWithoutPmon) {
  host_sample s;
  s.t = 10;
  s.source = "nvidia-smi";
  s.apps = "pid, process_name, used_gpu_memory [MiB]\n417, python3, 1002 MiB\n";
  s.util = "0, 37\n";
  s.procs.push_back({417, {417, 12}, "pid:[7]", 65534});
  const auto g = measure_gpu_share({s}, {"pid:[7]", {12}}, 0, 0);
  EXPECT_EQ(g.active, 1);
  EXPECT_EQ(g.source, "nvidia-smi utilization.gpu while a workload process held the GPU");
  s.util = "0, 0\n";
  EXPECT_EQ(measure_gpu_share({s}, {"pid:[7]", {12}}, 0, 0).active, 0);
}

TEST(GpuShare, SamplesOutsideTheRunDoNotCount) {
  host_sample s;
  s.source = "kfd";
  s.kfd = "5 100\n";
  s.util = "card0 50\n";
  s.procs.push_back({5, {5}, "pid:[7]", 65534});
  std::vector<host_sample> v;
  for (double t : {90.0, 100.0, 105.0, 200.0}) {
    s.t = t;
    v.push_back(s);
  }
  const auto g = measure_gpu_share(v, {"pid:[7]", {5}}, 100, 110);
  EXPECT_EQ(g.samples, 2);
}

class HostSampler : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("r2r-host-sampler-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto smi = dir / "nvidia-smi";
    std::ofstream(smi) << "#!/bin/sh\ncase \"$*\" in\n"
                          "  pmon*) printf '# gpu pid type sm mem command\\n# Idx # C/G %% %% name\\n"
                          "    0 "
                       << ::getpid()
                       << " C 55 10 test\\n' ;;\n"
                          "  *compute-apps*) printf 'pid, process_name, used_gpu_memory [MiB]\\n"
                       << ::getpid()
                       << ", test, 12 MiB\\n' ;;\n"
                          "  *) printf '0, 55\\n' ;;\nesac\n";
    fs::permissions(smi, fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

TEST_F(HostSampler, ToolsComeOnlyFromAbsoluteHostDirectories) {
  host_sampler_config cfg;
  cfg.tool_dirs = {"relative/bin", dir.string()};
  EXPECT_EQ(host_tool(cfg, "nvidia-smi"), (dir / "nvidia-smi").string());
  cfg.tool_dirs = {"."};
  EXPECT_FALSE(host_tool(cfg, "nvidia-smi").has_value());
  EXPECT_FALSE(host_sampler_available(cfg).first);
}

TEST_F(HostSampler, SampleNamesProcessesWithTheirNamespace) {
  host_sampler_config cfg;
  cfg.tool_dirs = {dir.string()};
  cfg.interval_s = 0.05;
  host_sampler sampler(cfg);
  sampler.start();
  ::usleep(300000);
  const auto samples = sampler.stop();
  ASSERT_GE(samples.size(), 2u);
  const auto& s = samples.front();
  ASSERT_EQ(s.procs.size(), 1u);
  EXPECT_EQ(s.procs[0].pid, ::getpid());
  EXPECT_EQ(s.procs[0].nspid.back(), ::getpid());
  EXPECT_EQ(s.procs[0].pidns, fs::read_symlink("/proc/self/ns/pid").string());
  EXPECT_EQ(s.procs[0].uid, static_cast<long long>(::getuid()));
  const auto g = measure_gpu_share(samples, {s.procs[0].pidns, {::getpid()}}, 0, 0);
  EXPECT_EQ(g.active, static_cast<int>(samples.size()));
  EXPECT_DOUBLE_EQ(g.share, 1.0);
}

}  // namespace
