// SPDX-License-Identifier: MIT
// The KFD topology parser on sysfs layouts written to a temporary directory the way amdgpu lays
// them out: CPU nodes (gfx_target_version 0) and GPU nodes with render minors.
#include "test_support.hpp"

#include <r2r/core/gpu_topology.hpp>

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace r2r::core;
using r2r::test::temp_dir;
using ::testing::HasSubstr;

void node(const temp_dir& root, int n, std::uint32_t gfx, int render_minor, const std::string& name) {
  std::string props = "cpu_cores_count " + std::string(gfx == 0 ? "64" : "0") + "\nsimd_count " +
                      std::string(gfx == 0 ? "0" : "1216") +
                      "\nmem_banks_count 1\ncaches_count 0\nio_links_count 1\np2p_links_count 0\ncpu_core_id_base 0\n"
                      "simd_id_base 0\nmax_waves_per_simd 8\nlds_size_in_kb 64\ngds_size_in_kb 0\nnum_gws 64\n"
                      "wave_front_size 64\narray_count 32\nsimd_arrays_per_engine 1\ncu_per_simd_array 10\n"
                      "simd_per_cu 4\nmax_slots_scratch_cu 32\ngfx_target_version " +
                      std::to_string(gfx) + "\nvendor_id " + std::string(gfx == 0 ? "0" : "4098") +
                      "\ndevice_id 29856\nlocation_id 1280\n"
                      "domain 0\ndrm_render_minor " +
                      std::to_string(render_minor) +
                      "\nhive_id 0\nnum_sdma_engines 2\nnum_sdma_xgmi_engines 6\nnum_sdma_queues_per_engine 8\n"
                      "num_cp_queues 24\nmax_engine_clk_fcompute 2100\nlocal_mem_size 0\nfw_version 151\n"
                      "capability 746013312\ndebug_prop 1511\nsdma_fw_version 19\nunique_id 1234567\nnum_xcc 8\n"
                      "max_engine_clk_ccompute 3700\n";
  const std::string dir = "sys/class/kfd/kfd/topology/nodes/" + std::to_string(n);
  root.write(dir + "/properties", props);
  root.write(dir + "/name", name + "\n");
  root.write(dir + "/gpu_id", gfx == 0 ? "0\n" : std::to_string(40000 + n) + "\n");
}

TEST(GfxName, DecodesTargetVersions) {
  EXPECT_EQ(gfx_name(90402), "gfx942");
  EXPECT_EQ(gfx_name(90010), "gfx90a");
  EXPECT_EQ(gfx_name(90008), "gfx908");
  EXPECT_EQ(gfx_name(90500), "gfx950");
  EXPECT_EQ(gfx_name(100300), "gfx1030");
  EXPECT_EQ(gfx_name(110000), "gfx1100");
  EXPECT_EQ(gfx_name(0), "");
}

TEST(GpuTopology, Mi300xLikeHostWithTwoCpuNodesAndFourGpus) {
  temp_dir root;
  root.write("dev/kfd", "");
  node(root, 0, 0, 0, "");
  node(root, 1, 0, 0, "");
  // Node numbers past 9 sort numerically, not as text.
  node(root, 2, 90402, 128, "gfx942");
  node(root, 3, 90402, 136, "gfx942");
  node(root, 10, 90402, 200, "gfx942");
  node(root, 4, 90402, 144, "gfx942");
  const auto found = discover_amd_gpus(root.path());
  EXPECT_TRUE(found.kfd_present);
  ASSERT_EQ(found.gpus.size(), 4u);
  EXPECT_EQ(found.gpus[0].node, 2);
  EXPECT_EQ(found.gpus[2].node, 4);
  EXPECT_EQ(found.gpus[3].node, 10);
  EXPECT_EQ(found.gpus[3].render_node, "/dev/dri/renderD200");
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(found.gpus[i].index, i);
    EXPECT_EQ(found.gpus[i].gfx, "gfx942");
  }
  EXPECT_THAT(found.summary(), HasSubstr("4 AMD GPUs"));

  const auto pin = pin_gpu(found, 1);
  ASSERT_TRUE(pin.has_value()) << pin.error().message;
  EXPECT_EQ(pin->gpu.render_node, "/dev/dri/renderD136");
  EXPECT_EQ(pin->kfd, "/dev/kfd");
  EXPECT_EQ(pin->env.at("HIP_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(pin->env.at("ROCR_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(pin->describe().at("render_minor"), "136");
  EXPECT_FALSE(pin_gpu(found, 4).has_value());
  EXPECT_FALSE(pin_gpu(found, -1).has_value());
}

TEST(GpuTopology, Mi250HostReportsGfx90a) {
  temp_dir root;
  root.write("dev/kfd", "");
  node(root, 0, 0, 0, "");
  node(root, 1, 90010, 128, "gfx90a");
  node(root, 2, 90010, 129, "gfx90a");
  const auto found = discover_amd_gpus(root.path());
  ASSERT_EQ(found.gpus.size(), 2u);
  EXPECT_EQ(found.gpus[1].gfx, "gfx90a");
  EXPECT_EQ(found.gpus[1].gfx_target_version, 90010u);
  EXPECT_EQ(pin_gpu(found, 1)->gpu.render_minor, 129);
}

TEST(GpuTopology, NoGpuIsSaidPlainly) {
  temp_dir empty;
  const auto none = discover_amd_gpus(empty.path());
  EXPECT_FALSE(none.kfd_present);
  EXPECT_TRUE(none.gpus.empty());
  EXPECT_THAT(none.summary(), HasSubstr("no AMD GPU"));
  const auto pin = pin_gpu(none, 0);
  ASSERT_FALSE(pin.has_value());
  EXPECT_THAT(pin.error().message, HasSubstr("no AMD GPU"));

  temp_dir cpu_only;  // topology present (an APU-less CPU host with amdkfd loaded), no GPU node
  cpu_only.write("dev/kfd", "");
  node(cpu_only, 0, 0, 0, "");
  const auto cpus = discover_amd_gpus(cpu_only.path());
  EXPECT_TRUE(cpus.gpus.empty());
  EXPECT_THAT(cpus.summary(), HasSubstr("lists no GPU node"));
}

TEST(GpuTopology, SandboxDoctorReportsTheGpusFound) {
  temp_dir root;
  root.write("dev/kfd", "");
  node(root, 0, 0, 0, "");
  node(root, 1, 90402, 128, "gfx942");
  const std::string cmd = "R2R_SYSROOT=" + root.path().string() +
                          " DOCKER_HOST=unix:///nonexistent/d.sock CONTAINER_HOST=unix:///nonexistent/p.sock " +
                          R2R_TEST_BIN_DIR_FOR_GPU "/repo2rocm --plugin-path " R2R_TEST_PLUGIN_DIR_FOR_GPU
                                                   " sandbox doctor --json";
  const auto r = r2r::test::run_process(cmd);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["gpus"].size(), 1u) << r.out << r.err;
  EXPECT_EQ(j["gpus"][0]["gfx"], "gfx942");
  EXPECT_EQ(j["gpus"][0]["render_node"], "/dev/dri/renderD128");
  bool docker_reported = false;
  for (const auto& e : j["engines"]) {
    if (e["name"] == "docker") {
      docker_reported = true;
      EXPECT_FALSE(e["answered"].get<bool>());
      EXPECT_THAT(e["problem"].get<std::string>(), HasSubstr("/nonexistent/d.sock"));
    }
  }
  EXPECT_TRUE(docker_reported);
  // Each answering sandbox shows its network policy (the configured default: install).
  for (const auto& e : j["engines"]) {
    if (e["answered"].get<bool>()) {
      EXPECT_EQ(e["network"], "install") << e.dump();
    }
  }
  // Exit 0 exactly when some engine (here only bubblewrap can) answered.
  bool any = false;
  for (const auto& e : j["engines"]) any = any || e["answered"].get<bool>();
  EXPECT_EQ(r.exit_code, any ? 0 : 1);
  EXPECT_FALSE(j["can"].empty() && j["cannot"].empty());
}

TEST(GpuTopology, SandboxDoctorNamesTheAssetEndpointWithoutItsSecrets) {
  const std::string base =
      "DOCKER_HOST=unix:///nonexistent/d.sock CONTAINER_HOST=unix:///nonexistent/p.sock " +
      std::string(R2R_TEST_BIN_DIR_FOR_GPU "/repo2rocm --plugin-path " R2R_TEST_PLUGIN_DIR_FOR_GPU " sandbox doctor");
  const auto r = r2r::test::run_process(
      "HF_ENDPOINT=http://mirror-user:mirror-pass@mirror.example:8080/ HF_TOKEN=hf_doctorSecret123 " + base +
      " --json");
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["assets"]["endpoint"], "http://***@mirror.example:8080") << r.out;
  EXPECT_EQ(j["assets"]["token"], true);
  EXPECT_EQ(j["assets"]["mount"], "/opt/r2r-assets");
  const auto text = r2r::test::run_process("env -u HF_ENDPOINT -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN " + base);
  EXPECT_THAT(text.out, HasSubstr("assets: fetched by repo2rocm from https://huggingface.co (HF_ENDPOINT; token not "
                                  "set), mounted read-only at /opt/r2r-assets"));
  for (const auto* out : {&r.out, &r.err})
    for (const char* secret : {"hf_doctorSecret123", "mirror-pass", "mirror-user"})
      EXPECT_EQ(out->find(secret), std::string::npos) << secret;
}

}  // namespace
