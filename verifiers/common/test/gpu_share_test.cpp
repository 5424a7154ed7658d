// SPDX-License-Identifier: MIT
// The host sampler and GPU-share attribution: real nvidia-smi pmon / compute-apps text from the H200
// captures, a sampler run against a stand-in nvidia-smi found only by absolute host directory, and
// attribution by pid namespace and NSpid.
#include "mode1_fixtures.hpp"

#include <r2r/verify/gpu_share.hpp>
#include <r2r/verify/host_objects.hpp>
#include <r2r/verify/host_sampler.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace {

using namespace r2r::plugins::verifier;
using namespace r2r::plugins::verifier::testdata;
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
  auto as_user = samples;  // attribution never takes a host-root process; this test may run as root
  for (auto& x : as_user)
    for (auto& p : x.procs) p.uid = 65534;
  const auto g = measure_gpu_share(as_user, {s.procs[0].pidns, {::getpid()}}, 0, 0);
  EXPECT_EQ(g.active, static_cast<int>(samples.size()));
  EXPECT_DOUBLE_EQ(g.share, 1.0);
  for (auto& x : as_user)
    for (auto& p : x.procs) p.uid = 0;
  EXPECT_EQ(measure_gpu_share(as_user, {s.procs[0].pidns, {::getpid()}}, 0, 0).attributed, 0);
}

TEST_F(HostSampler, SampleRecordsEachMappedObjectOncePerProcess) {
  host_sampler_config cfg;
  cfg.tool_dirs = {dir.string()};
  cfg.interval_s = 0.05;
  host_sampler sampler(cfg);
  sampler.start();
  ::usleep(300000);
  const auto samples = sampler.stop();
  ASSERT_GE(samples.size(), 2u);
  const auto& first = samples.front().procs.at(0);
  EXPECT_TRUE(first.objects_error.empty()) << first.objects_error;
  const auto libc = std::find_if(first.objects.begin(), first.objects.end(),
                                 [](const std::string& o) { return o.find("/libc.so") != std::string::npos; });
  ASSERT_NE(libc, first.objects.end()) << "this test process maps libc";
  EXPECT_TRUE(samples[1].procs.at(0).objects.empty()) << "an object is reported once per pid";
  ASSERT_EQ(first.object_ctimes.size(), first.objects.size());
  const auto libc_ctime = first.object_ctimes[static_cast<std::size_t>(libc - first.objects.begin())];
  EXPECT_GT(libc_ctime, 0) << "stat through /proc/<pid>/root";
  EXPECT_LT(libc_ctime, samples.front().t) << "libc was installed before this test ran";
  const auto code = workload_objects(samples, {::getpid()});
  EXPECT_TRUE(code.read);
  EXPECT_EQ(code.objects.at(*libc), ::getpid());
  EXPECT_EQ(host_code_gap(code, {::getpid()}), "");
  EXPECT_TRUE(workload_objects(samples, {::getpid() + 1}).objects.empty()) << "only the workload's GPU pids count";
}

TEST(HostObjects, MapsLinesGiveSharedObjectPathsOnly) {
  const fs::path root = fs::temp_directory_path() / ("r2r-maps-" + std::to_string(::getpid()));
  fs::create_directories(root / "77");
  std::ofstream(root / "77" / "maps")
      << "7f00-7f10 r-xp 00000000 08:01 1234   /opt/venv/lib/python3.10/site-packages/pkg/_C.cpython-310.so\n"
         "7f10-7f20 r--p 00001000 08:01 1234   /opt/venv/lib/python3.10/site-packages/pkg/_C.cpython-310.so\n"
         "7f20-7f30 r-xp 00000000 08:01 99     /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30\n"
         "7f30-7f40 rw-p 00000000 00:00 0      [heap]\n"
         "7f40-7f50 rw-p 00000000 00:00 0 \n"
         "7f50-7f60 r--p 00000000 08:01 5      /data/weights.bin\n"
         "7f60-7f70 r--p 00000000 08:01 6      /data/my.socket_dir/x.bin\n"
         "7f70-7f80 r-xp 00000000 08:01 7      /tmp/old/libgone.so (deleted)\n";
  EXPECT_EQ(
      mapped_objects(root.string(), 77),
      (std::vector<std::string>{"/opt/venv/lib/python3.10/site-packages/pkg/_C.cpython-310.so",
                                "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "/tmp/old/libgone.so (deleted)"}));
  try {
    (void)mapped_objects(root.string(), 78);
    ADD_FAILURE() << "a missing maps file must throw";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("ptrace-read access"));
  }
  fs::remove_all(root);
}

TEST(HostObjects, UnreadableMapsAreNamedInTheGap) {
  host_sample s;
  host_process p;
  p.pid = 12;
  p.objects_error =
      "cannot read /proc/12/maps (the process left, or the verifier lacks ptrace-read access: run it as root)";
  s.procs.push_back(p);
  const auto code = workload_objects({s}, {12});
  EXPECT_FALSE(code.read);
  EXPECT_THAT(host_code_gap(code, {12}), ::testing::HasSubstr("ptrace-read access"));
  EXPECT_THAT(host_code_gap(code, {}), ::testing::HasSubstr("no process of the workload on the GPU"));
}

}  // namespace

namespace {

// The AMD host sampler on a KFD/DRM sysfs tree laid out as the amdgpu driver does
// (/sys/class/kfd/kfd/proc/<pid>/vram_<gpu_id>, /sys/class/drm/card<N>/device/gpu_busy_percent),
// with this test process as the GPU process so its /proc entry is real.
TEST(HostSamplerAmd, KfdSysfsGivesVramBusyAndTheProcess) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("r2r-kfd-" + std::to_string(::getpid()));
  const auto pid = std::to_string(::getpid());
  fs::create_directories(root / "kfd" / pid / "stats_51966");
  fs::create_directories(root / "kfd" / "not-a-pid");
  std::ofstream(root / "kfd" / pid / "vram_51966") << "1073741824\n";
  std::ofstream(root / "kfd" / pid / "vram_51967") << "1048576\n";
  std::ofstream(root / "kfd" / pid / "pasid") << "32770\n";
  fs::create_directories(root / "drm" / "card0" / "device");
  fs::create_directories(root / "drm" / "renderD128");
  std::ofstream(root / "drm" / "card0" / "device" / "gpu_busy_percent") << "87\n";
  host_sampler_config cfg;
  cfg.vendor = "amd";
  cfg.kfd_root = (root / "kfd").string();
  cfg.drm_root = (root / "drm").string();
  EXPECT_TRUE(host_sampler_available(cfg).first);
  const auto s = take_host_sample(cfg);
  EXPECT_EQ(s.source, "kfd");
  EXPECT_EQ(s.kfd, pid + " 1074790400\n") << "VRAM summed over the process's GPUs";
  EXPECT_EQ(s.util, "card0 87\n");
  ASSERT_EQ(s.procs.size(), 1u);
  EXPECT_EQ(s.procs[0].pid, ::getpid());
  EXPECT_FALSE(s.procs[0].objects.empty());
  auto as_user = s;
  as_user.procs[0].uid = 65534;  // attribution never takes a host-root process; this test may run as root
  const auto g = measure_gpu_share({as_user}, {s.procs[0].pidns, {::getpid()}}, 0, 0);
  EXPECT_EQ(g.active, 1);
  EXPECT_DOUBLE_EQ(g.max_vram_bytes, 1074790400.0);
  EXPECT_EQ(g.source, "KFD vram of the workload's processes with gpu_busy_percent > 0");
  // The GPU idle: held, never active.
  std::ofstream(root / "drm" / "card0" / "device" / "gpu_busy_percent") << "0\n";
  auto idle = take_host_sample(cfg);
  idle.procs.at(0).uid = 65534;
  const auto gi = measure_gpu_share({idle}, {s.procs[0].pidns, {::getpid()}}, 0, 0);
  EXPECT_EQ(gi.attributed, 1);
  EXPECT_EQ(gi.active, 0);
  fs::remove_all(root);
  EXPECT_FALSE(host_sampler_available(cfg).first);
  EXPECT_THAT(host_sampler_available(cfg).second, ::testing::HasSubstr("no amdgpu KFD driver"));
}

}  // namespace
