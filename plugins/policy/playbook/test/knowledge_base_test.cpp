// SPDX-License-Identifier: MIT
// The failure knowledge base against the real ROCm error outputs in tests/data/real-outputs/rocm-errors
// (each file's 4-line '#' header stripped), plus its fix templates and its file checks.
#include "knowledge_base.hpp"

#include <r2r/core/json_schema.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace {

using namespace r2r::plugins::policy;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The posted text of a real-output file: everything after its '# ' header lines.
std::string sample(const std::string& name) {
  const std::string text = read(std::filesystem::path(R2R_ROCM_ERRORS_DIR) / name);
  std::istringstream in(text);
  std::string line, body;
  bool header = true;
  while (std::getline(in, line)) {
    if (header && line.rfind("# ", 0) == 0) continue;
    header = false;
    body += line + "\n";
  }
  return body;
}

/// The primary (first non-info) class of `text` as a failure, or the first info class.
std::string primary(const std::string& text) {
  const auto matches = knowledge_base::builtin().classify(text);
  for (const auto& m : matches)
    if (m.severity != "info") return m.class_id;
  return matches.empty() ? "" : matches.front().class_id;
}

TEST(KnowledgeBase, ErrorsJsonValidatesAgainstItsSchema) {
  const auto schema = r2r::core::json_schema::compile(nlohmann::json::parse(read(R2R_ERRORS_SCHEMA)), "errors");
  ASSERT_TRUE(schema) << schema.error().to_string();
  const auto violations =
      schema->validate(nlohmann::json::parse(read(std::string(R2R_KNOWLEDGE_DIR) + "/errors.json")));
  EXPECT_TRUE(violations.empty()) << violations.front().pointer << ": " << violations.front().message;
}

TEST(KnowledgeBase, EveryRealSampleIsClassifiedAsItsKnownCause) {
  const std::map<std::string, std::string> expected{
      {"bitsandbytes-rocm-import-missing-native-library.txt", "bitsandbytes_native_missing"},
      {"ci-import-torch-libamdhip64-so7-missing.txt", "hip_runtime_missing"},
      {"collect-env-indexerror-hip-runtime-not-found.txt", "hip_runtime_missing"},
      {"debian12-pip-externally-managed-environment.txt", "pep668_externally_managed"},
      {"7840u-flash-attn-rocm-import-undefined-hip-symbol.txt", "flash_attn_cuda_wheel"},
      {"gfx1151-torch-hip-out-of-memory.txt", "gpu_out_of_memory"},
      {"vega56-miopen-code-object-build-failed.txt", "miopen_kernel_build_failed"},
      {"gfx1100-flash-attn-ck-build-failed-wheel.txt", "flash_attn_build_failed"},
      {"mi250x-invalid-device-function-amd-log-level-traceback.txt", "missing_code_object"},
      {"mi250x-lumi-miopen-status-unknown-error.txt", "miopen_error"},
      {"mi250x-missing-code-object-for-isa-gfx90a.txt", "missing_code_object"},
      {"mi250x-no-hip-gpus-available-singularity-bind.txt", "no_gpu_visible"},
      {"mi300x-hw-exception-gpu-hang.txt", "gpu_hang"},
      {"mi300x-memory-access-fault-write-readonly-dmesg.txt", "gpu_memory_access_fault"},
      {"mi300x-ras-uncorrectable-athub-gpu-reset-dmesg.txt", "gpu_hardware_error"},
      {"mi355x-gfx950-vllm-aiter-memory-access-fault-unknown.txt", "gpu_memory_access_fault"},
      {"rocprofv3-sigsegv-fatal-error-pytest.txt", "profiler_crash"},
      {"rx7900xt-pcie-atomics-hostcall-aql-dispatch-failed.txt", "pcie_atomics_unsupported"},
      {"rx7900xt-torch-wheel-without-gfx1100-code-object.txt", "missing_code_object"},
      {"rx7900xtx-igpu-hipErrorNoBinaryForGpu-amd-log-level.txt", "missing_code_object"},
      {"rx9070xt-amdgpu-ids-missing-warning-rocm71.txt", "amdgpu_ids_missing"},
      {"steamdeck-hipErrorNoBinaryForGpu-torch-import-abort.txt", "missing_code_object"},
      {"torch29-acceleratorerror-invalid-device-function.txt", "missing_code_object"},
      {"wsl-rx9060xt-rocminfo-hsa-out-of-resources-rocm702.txt", "hip_runtime_init_failed"},
  };
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(R2R_ROCM_ERRORS_DIR)) {
    ++files;
    const std::string name = e.path().filename().string();
    const auto it = expected.find(name);
    ASSERT_NE(it, expected.end()) << "no expectation for the real sample " << name;
    EXPECT_EQ(primary(sample(name)), it->second) << name;
  }
  EXPECT_EQ(files, expected.size());
}

TEST(KnowledgeBase, BenignWarningIsInfoAndNeverTheCauseOfAFailure) {
  const auto m = knowledge_base::builtin().classify(sample("rx9070xt-amdgpu-ids-missing-warning-rocm71.txt"));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].severity, "info");
  EXPECT_TRUE(knowledge_base::builtin().fixes(m[0], {{"arch", "gfx1201"}}).empty());
}

TEST(KnowledgeBase, MemoryFaultSignatureKeepsTheReasonAndDropsAddresses) {
  const auto m = knowledge_base::builtin().classify(sample("mi300x-memory-access-fault-write-readonly-dmesg.txt"));
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].signature, "gpu_memory_access_fault:Write access to a read-only page");
  EXPECT_EQ(m[0].line, 1u);
}

TEST(KnowledgeBase, MissingCodeObjectRebuildsForTheArchAndNeverOverridesTheGfxVersion) {
  const auto& kb = knowledge_base::builtin();
  const auto m = kb.classify(sample("mi250x-missing-code-object-for-isa-gfx90a.txt"));
  ASSERT_FALSE(m.empty());
  const auto none = kb.fixes(m[0], {{"arch", "gfx90a"}});
  EXPECT_TRUE(none.empty()) << "no kernel build in the plan: nothing to rebuild";
  const auto fixes = kb.fixes(m[0], {{"arch", "gfx90a"}, {"kernel_build_command", "pip install -e ."}});
  ASSERT_EQ(fixes.size(), 1u);
  EXPECT_EQ(fixes[0].action.at("type"), "build_kernel");
  EXPECT_EQ(fixes[0].action.at("command"),
            "export PYTORCH_ROCM_ARCH=gfx90a GPU_ARCHS=gfx90a HIPCC_COMPILE_FLAGS_APPEND=--offload-arch=gfx90a && pip "
            "install -e .");
  EXPECT_THAT(kb.advice(m[0], {{"arch", "gfx90a"}}), HasSubstr("Never set HSA_OVERRIDE_GFX_VERSION"));
  EXPECT_THAT(read(std::string(R2R_KNOWLEDGE_DIR) + "/errors.json"),
              ::testing::Not(HasSubstr("HSA_OVERRIDE_GFX_VERSION=")));
}

TEST(KnowledgeBase, MissingModuleMapsImportNamesToDistributions) {
  const auto& kb = knowledge_base::builtin();
  const std::map<std::string, std::string> cases{{"cv2", "opencv-python"}, {"sklearn", "scikit-learn"},
                                                 {"yaml", "pyyaml"},       {"PIL", "pillow"},
                                                 {"timm", "timm"},         {"einops.layers", "einops"}};
  for (const auto& [module, package] : cases) {
    const auto m =
        kb.classify("Traceback (most recent call last):\nModuleNotFoundError: No module named '" + module + "'\n");
    ASSERT_FALSE(m.empty()) << module;
    EXPECT_EQ(m[0].signature, "missing_python_module:" + module);
    const auto fixes = kb.fixes(m[0], {{"arch", "gfx942"}});
    ASSERT_EQ(fixes.size(), 1u) << module;
    EXPECT_EQ(fixes[0].action, (nlohmann::json{{"type", "install"}, {"manager", "pip"}, {"packages", {package}}}))
        << module;
  }
}

TEST(KnowledgeBase, MissingCudaOnlyModuleFollowsItsRocmRule) {
  const auto& kb = knowledge_base::builtin();
  auto m = kb.classify("ModuleNotFoundError: No module named 'pynvml'");
  ASSERT_FALSE(m.empty());
  auto fixes = kb.fixes(m[0], {{"arch", "gfx942"}});
  ASSERT_EQ(fixes.size(), 1u);
  EXPECT_EQ(fixes[0].action, (nlohmann::json{{"type", "run"}, {"command", "pip install /opt/rocm/share/amd_smi"}}));

  m = kb.classify("ModuleNotFoundError: No module named 'flash_attn'");
  fixes = kb.fixes(m.at(0), {{"arch", "gfx942"}});
  ASSERT_EQ(fixes.size(), 1u);
  EXPECT_EQ(fixes[0].action.at("type"), "build_kernel");
  EXPECT_THAT(fixes[0].action.at("command").get<std::string>(), HasSubstr("GPU_ARCHS=gfx942"));

  m = kb.classify("ModuleNotFoundError: No module named 'tensorrt'");
  EXPECT_TRUE(kb.fixes(m.at(0), {{"arch", "gfx942"}}).empty()) << "no ROCm build: no install";
}

TEST(KnowledgeBase, InstalledNvidiaWheelsAreCollectedForUninstall) {
  const std::string pip =
      "Collecting nvidia-cublas-cu12==12.1.3.1\n"
      "Successfully installed einops-0.8.0 nvidia-cublas-cu12-12.1.3.1 nvidia-cudnn-cu12-8.9.2.26 "
      "nvidia-nccl-cu12-2.18.1 timm-1.0.3\n";
  const auto& kb = knowledge_base::builtin();
  const auto m = kb.classify(pip, true);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].class_id, "nvidia_wheel_installed");
  const auto fixes = kb.fixes(m[0], {});
  ASSERT_EQ(fixes.size(), 1u);
  EXPECT_EQ(fixes[0].action.at("command"), "pip uninstall -y nvidia-cublas-cu12 nvidia-cudnn-cu12 nvidia-nccl-cu12");
  EXPECT_TRUE(kb.classify("Successfully installed einops-0.8.0 timm-1.0.3\n", true).empty());
}

TEST(KnowledgeBase, FlashAttnCudaWheelIsRebuiltNotSwappedForSdpa) {
  const auto& kb = knowledge_base::builtin();
  const auto m = kb.classify(
      "ImportError: /usr/lib/python3/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined "
      "symbol: _ZN3c104cuda9SetDeviceEi");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].class_id, "flash_attn_cuda_wheel");
  const auto fixes = kb.fixes(m[0], {{"arch", "gfx942"}});
  ASSERT_EQ(fixes.size(), 2u);
  EXPECT_TRUE(fixes[0].degradation.empty());
  EXPECT_THAT(fixes[0].action.at("command").get<std::string>(), HasSubstr("flash-attention"));
  EXPECT_EQ(fixes[1].degradation, "D2");
  for (const auto& f : fixes) EXPECT_THAT(f.action.dump(), ::testing::Not(HasSubstr("sdpa")));
}

TEST(KnowledgeBase, OtherSeededSignatures) {
  const std::map<std::string, std::string> cases{
      {"RuntimeError: CUDA error: no kernel image is available for execution on the device", "missing_code_object"},
      {"hipErrorNotInitialized: initialization error", "hip_runtime_init_failed"},
      {"ImportError: /opt/ext/_C.so: undefined symbol: _ZN2at4_ops5zeros4callEv", "cxx_abi_undefined_symbol"},
      {"ImportError: /lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found", "glibcxx_missing"},
      {"ERROR: ResolutionImpossible: for help visit https://pip.pypa.io", "pip_resolver_conflict"},
      {"sh: 1: nvidia-smi: not found", "nvidia_smi_missing"},
      {"pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found", "nvml_unavailable"},
      {"RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED", "cudnn_only_call"},
      {"triton.compiler.errors.CompilationError: at 12:4:", "triton_compile_error"},
      {"torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB", "gpu_out_of_memory"},
      {"RuntimeError: Ninja is required to load C++ extensions", "ninja_missing"},
      {"/bin/sh: 1: cmake: not found", "cmake_missing"},
      {"error: command 'gcc' failed: No such file or directory", "compiler_missing"},
      {"error: static assertion failed: The mask must be a 64-bit integer", "warp_size_32_assumption"},
      {"ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
       "cuda_library_missing"},
  };
  for (const auto& [text, cls] : cases) EXPECT_EQ(primary(text), cls) << text;
}

TEST(KnowledgeBase, OutOfMemoryRetriesTheStepWithoutScalingDown) {
  const auto& kb = knowledge_base::builtin();
  const auto m = kb.classify("torch.OutOfMemoryError: HIP out of memory.");
  const auto fixes = kb.fixes(m.at(0), {{"command", "python train.py"}, {"action_type", "run_workload"}});
  ASSERT_EQ(fixes.size(), 1u);
  EXPECT_TRUE(fixes[0].retries_step);
  EXPECT_EQ(fixes[0].action,
            (nlohmann::json{{"type", "run_workload"},
                            {"command", "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True python train.py"}}));
}

TEST(KnowledgeBase, Pep668RunsTheStepInAWorkspaceVenvThatKeepsTheImagePackages) {
  const auto& kb = knowledge_base::builtin();
  const auto m = kb.classify(sample("debian12-pip-externally-managed-environment.txt"));
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m.front().class_id, "pep668_externally_managed");
  const auto fixes = kb.fixes(m.front(), {{"command", "pip install -r requirements.txt"}, {"action_type", "run"}});
  ASSERT_EQ(fixes.size(), 1u);
  EXPECT_TRUE(fixes[0].retries_step);
  EXPECT_TRUE(fixes[0].degradation.empty());
  EXPECT_EQ(fixes[0].action, (nlohmann::json{{"type", "run"},
                                             {"command",
                                              "python3 -m venv --system-site-packages .venv && . .venv/bin/activate "
                                              "&& pip install -r requirements.txt"}}));
  // Never the override that PEP 668's own message offers.
  EXPECT_THAT(fixes[0].action.dump(), Not(HasSubstr("break-system-packages")));
  // A pip failure of another kind is not PEP 668.
  EXPECT_NE(primary("ERROR: No matching distribution found for einops"), "pep668_externally_managed");
}

TEST(KnowledgeBase, MiopenDatabaseWarningIsInfoBesideTheKernelBuildFailure) {
  const auto matches = knowledge_base::builtin().classify(sample("vega56-miopen-code-object-build-failed.txt"));
  std::vector<std::string> ids;
  for (const auto& m : matches) ids.push_back(m.class_id + ":" + m.severity);
  EXPECT_THAT(ids, Contains("miopen_db_missing:info"));
  EXPECT_THAT(ids, Contains("miopen_kernel_build_failed:error"));
  EXPECT_EQ(primary("MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx90a6e.kdb"),
            "miopen_db_missing");
}

TEST(KnowledgeBase, BadFilesAreRejectedWithThePointer) {
  const auto imports = nlohmann::json{{"imports", nlohmann::json::object()}};
  const auto cuda = nlohmann::json{{"packages", nlohmann::json::object()}, {"prefixes", nlohmann::json::object()}};
  const auto classes = [](nlohmann::json c) {
    return nlohmann::json{{"format", "r2r.knowledge.errors/1"}, {"classes", nlohmann::json::array({c})}};
  };
  nlohmann::json good{{"id", "x"},
                      {"title", "t"},
                      {"severity", "error"},
                      {"patterns", {"a("}},
                      {"signature", "x"},
                      {"advice", "do"},
                      {"fixes", nlohmann::json::array()}};
  try {
    knowledge_base::parse(classes(good), imports, cuda, "my-errors.json");
    FAIL() << "an invalid regex was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("my-errors.json: /classes/0/patterns/0: invalid regex 'a('"));
  }
  good["patterns"] = {"a"};
  good["severity"] = "fatal";
  EXPECT_THROW(knowledge_base::parse(classes(good), imports, cuda, "f"), std::invalid_argument);
  EXPECT_THROW(knowledge_base::parse(nlohmann::json{{"format", "v0"}}, imports, cuda, "f"), std::invalid_argument);
  try {
    knowledge_base::from_file("/nonexistent/errors.json");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot be read"));
  }
}

}  // namespace
