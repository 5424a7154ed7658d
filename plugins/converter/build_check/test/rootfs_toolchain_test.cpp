// SPDX-License-Identifier: MIT
// The build check with a HIP toolchain rootfs (scripts/toolchains/hip.sh) run through bubblewrap:
// the path mapping of the jail, the gfx targets a current HIP knows, and containment: a unit whose
// includes reach for host files (an absolute /etc path, a ../ path, a symlink out of the sources)
// reads them with the host hipcc (the attack) and cannot with the rootfs (the defence).
// The rootfs path comes from $R2R_HIP_ROOTFS (the ctest fixture hip_rootfs builds it).
#include "build_checker.hpp"
#include "rootfs_jail.hpp"

#include <r2r/convert/scratch_dir.hpp>
#include <r2r/convert/subprocess.hpp>
#include <r2r/sdk/testing/fake_host.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace {

namespace fs = std::filesystem;
using r2r::plugins::converter::build_checker;
using r2r::plugins::converter::rootfs_jail;
using r2r::sdk::converter::build_result;
using r2r::sdk::converter::convert_request;
using r2r::sdk::converter::convert_response;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const build_result* find(const convert_response& r, std::string_view file, std::string_view arch) {
  for (const auto& b : r.builds) {
    if (b.file == file && b.arch == arch) return &b;
  }
  return nullptr;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(RootfsJail, MapsOnlyPathsBeneathTheBoundDirectories) {
  r2r::plugins::converter::scratch_dir tmp("r2r-jail-test");
  write(tmp.path() / "root/usr/bin/hipcc", "");
  rootfs_jail jail((tmp.path() / "root").string(), "/usr/bin/bwrap");
  jail.bind("/srv/project", "/tmp/scratch");
  EXPECT_EQ(jail.guest_path("/srv/project/src/a.cu"), "/r2r/src/src/a.cu");
  EXPECT_EQ(jail.guest_path("/srv/project"), "/r2r/src");
  EXPECT_EQ(jail.guest_path("/tmp/scratch/src/b.cu"), "/r2r/scratch/src/b.cu");
  EXPECT_EQ(jail.guest_path("/srv/project/../etc/passwd"), std::nullopt) << "a ../ path leaves the sources";
  EXPECT_EQ(jail.guest_path("/srv/projectx/a.cu"), std::nullopt) << "a sibling with the same prefix";
  EXPECT_EQ(jail.guest_path("/etc/passwd"), std::nullopt);
  EXPECT_EQ(jail.host_text("/r2r/src/a.cu:3:1: error: x\n/r2r/scratch/o.o"),
            "/srv/project/a.cu:3:1: error: x\n/tmp/scratch/o.o");
  EXPECT_TRUE(fs::is_directory(tmp.path() / "root/r2r/src")) << "mount points are made in the rootfs";
}

TEST(RootfsJail, BindsTheRootfsReadOnlyAndNoOtherHostDirectory) {
  r2r::plugins::converter::scratch_dir tmp("r2r-jail-test");
  write(tmp.path() / "root/usr/bin/hipcc", "");
  rootfs_jail jail((tmp.path() / "root").string(), "/usr/bin/bwrap");
  jail.bind("/srv/project", "/tmp/scratch");
  const auto argv = jail.prefix();
  std::vector<std::string> host_sources;  // every host path bwrap is told to bind
  for (std::size_t i = 0; i + 2 < argv.size(); ++i) {
    if (argv[i] == "--bind" || argv[i] == "--ro-bind" || argv[i] == "--dev-bind") {
      host_sources.push_back(argv[i] + " " + argv[i + 1] + " " + argv[i + 2]);
    }
  }
  EXPECT_EQ(host_sources,
            (std::vector<std::string>{"--ro-bind " + (tmp.path() / "root").string() + " /",
                                      "--ro-bind /srv/project /r2r/src", "--bind /tmp/scratch /r2r/scratch"}));
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--unshare-all"), argv.end()) << "no network, own namespaces";
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--clearenv"), argv.end()) << "the host environment stays out";
  EXPECT_EQ(argv.back(), "--");
}

TEST(RootfsJail, RejectsARootfsWithoutHipcc) {
  r2r::plugins::converter::scratch_dir tmp("r2r-jail-test");
  try {
    rootfs_jail jail(tmp.path().string(), "/usr/bin/bwrap");
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("scripts/toolchains/hip.sh 6.4"));
  }
  EXPECT_THROW(rootfs_jail("relative/root", "/usr/bin/bwrap"), std::invalid_argument);
}

class RootfsBuildCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* r = std::getenv("R2R_HIP_ROOTFS");
    ASSERT_TRUE(r && *r) << "R2R_HIP_ROOTFS is not set; ctest sets it (fixture hip_rootfs)";
    rootfs_ = r;
    ASSERT_TRUE(fs::exists(fs::path(rootfs_) / "usr/bin/hipcc"))
        << "no HIP rootfs at " << rootfs_ << "; build it: scripts/toolchains/hip.sh 6.4 " << rootfs_;
  }
  build_checker::config rootfs_config() const {
    build_checker::config cfg;
    cfg.toolchain = "rootfs";
    cfg.rootfs = rootfs_;
    return cfg;
  }
  std::string rootfs_;
  r2r::sdk::testing::fake_host host_;
};

TEST_F(RootfsBuildCheck, CompilesForGfx90aGfx942AndGfx950AndNamesTheToolchain) {
  build_checker checker(rootfs_config(), host_.sdk_host());
  auto ctx = host_.context();
  const auto request =
      nlohmann::json{{"files",
                      {{{"path", "src/scale.hip"},
                        {"text",
                         "#include <hip/hip_runtime.h>\n#include \"scale.h\"\n"
                         "__global__ void scale(float* x, int n) {\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  if (i < n) x[i] *= kFactor;\n}\n"}},
                       {{"path", "src/scale.h"}, {"text", "#pragma once\nconstexpr float kFactor = 1.5f;\n"}}}}}
          .get<convert_request>();
  const auto r = checker.convert(request, ctx);
  ASSERT_TRUE(r.tool);
  EXPECT_THAT(r.tool->version, HasSubstr("HIP version: 6.4"));
  EXPECT_EQ(r.tool->path, rootfs_ + "/usr/bin/hipcc");
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    const auto* b = find(r, "src/scale.hip", arch);
    ASSERT_NE(b, nullptr) << arch << " is a default target";
    EXPECT_EQ(b->status, "passed") << arch << ": " << b->log;
    EXPECT_THAT(b->toolchain, StartsWith("HIP 6.4."));
    EXPECT_THAT(b->toolchain, HasSubstr("(rootfs)"));
    EXPECT_THAT(b->command, HasSubstr("--offload-arch=" + std::string(arch)));
    EXPECT_THAT(b->command, HasSubstr("bwrap"));
  }
}

TEST_F(RootfsBuildCheck, ReportsTheRealFileAndLineOfAnError) {
  r2r::plugins::converter::scratch_dir tmp("r2r-rootfs-test");
  write(tmp.path() / "src/bad.cu", "#include <hip/hip_runtime.h>\n__global__ void k(float* x) {\n  x[0] = nope;\n}\n");
  build_checker checker(rootfs_config(), host_.sdk_host());
  auto ctx = host_.context();
  const auto request = nlohmann::json{{"root", (tmp.path() / "src").string()},
                                      {"files", {{{"path", "bad.cu"}}}},
                                      {"target", {{"arch", {"gfx950"}}}}}
                           .get<convert_request>();
  const auto r = checker.convert(request, ctx);
  const auto* b = find(r, "bad.cu", "gfx950");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->status, "failed");
  EXPECT_EQ(b->failure_class, "undeclared_identifier");
  EXPECT_THAT(b->log, HasSubstr((tmp.path() / "src/bad.cu").string() + ":3:")) << "guest paths are mapped back";
}

TEST_F(RootfsBuildCheck, HipblasltHeadersAreThere) {
  // llm.c's common.h includes cublasLt.h (-> hipblaslt/hipblaslt.h): without hipBLASLt in the rootfs
  // every unit including it was only ever checked_in_container, never compiled (hip.sh installs it).
  build_checker checker(rootfs_config(), host_.sdk_host());
  auto ctx = host_.context();
  const auto request = nlohmann::json{{"files",
                                       {{{"path", "lt.hip"},
                                         {"text",
                                          "#include <hip/hip_runtime.h>\n#include <hipblaslt/hipblaslt.h>\n"
                                          "hipblasLtHandle_t handle;\n"
                                          "__global__ void k(float* x) { x[threadIdx.x] = 0.f; }\n"}}}},
                                      {"target", {{"arch", {"gfx950"}}}}}
                           .get<convert_request>();
  const auto r = checker.convert(request, ctx);
  const auto* b = find(r, "lt.hip", "gfx950");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->status, "passed") << b->log;
}

/// A project whose includes reach for files outside it. Each unit is a separate TU so a host read
/// shows in its own log: the secret file holds an #error with a random token, and /etc/debian_version
/// (a number on the host, "forky/sid" in the rootfs) is echoed by clang's diagnostic of the line.
struct hostile_project {
  explicit hostile_project(const fs::path& base) {
    std::random_device rd;
    token = "R2R_LEAK_" + std::to_string(rd()) + std::to_string(rd());
    secret = base / "outside/leak.h";
    write(secret, "#error " + token + "\n");
    root = base / "project";
    write(root / "abs.cu", "#include <hip/hip_runtime.h>\n#include \"" + secret.string() + "\"\n");
    write(root / "rel.cu", "#include <hip/hip_runtime.h>\n#include \"../outside/leak.h\"\n");
    fs::create_directories(root);
    fs::create_symlink(secret, root / "linked.h");
    write(root / "link.cu", "#include <hip/hip_runtime.h>\n#include \"linked.h\"\n");
    write(root / "etc.cu", "#include <hip/hip_runtime.h>\nint v =\n#include \"/etc/debian_version\"\n;\n");
  }
  convert_request request() const {
    return nlohmann::json{
        {"root", root.string()},
        {"files", {{{"path", "abs.cu"}}, {{"path", "rel.cu"}}, {{"path", "link.cu"}}, {{"path", "etc.cu"}}}},
        {"target", {{"arch", {"gfx90a"}}}}}
        .get<convert_request>();
  }
  std::string token;
  fs::path secret;
  fs::path root;
};

TEST_F(RootfsBuildCheck, AttackTheHostHipccReadsHostFilesThroughIncludes) {
  ASSERT_TRUE(r2r::plugins::converter::find_program("hipcc", {"/opt/rocm/bin"}))
      << "the host hipcc is needed for the attack";
  r2r::plugins::converter::scratch_dir tmp("r2r-rootfs-test");
  const hostile_project p(tmp.path());
  build_checker::config cfg;
  cfg.toolchain = "host";
  cfg.default_arch = {"gfx90a"};
  build_checker checker(cfg, host_.sdk_host());
  auto ctx = host_.context();
  const auto r = checker.convert(p.request(), ctx);
  for (const char* unit : {"abs.cu", "rel.cu", "link.cu"}) {
    const auto* b = find(r, unit, "gfx90a");
    ASSERT_NE(b, nullptr);
    EXPECT_THAT(b->log, HasSubstr(p.token)) << unit << ": the host hipcc read the file outside the project";
  }
  const auto* etc = find(r, "etc.cu", "gfx90a");
  ASSERT_NE(etc, nullptr);
  EXPECT_EQ(etc->status, "passed") << "the host's /etc/debian_version (" << slurp("/etc/debian_version")
                                   << ") is a number, so it compiles: " << etc->log;
}

TEST_F(RootfsBuildCheck, DefenceTheRootfsCannotReadHostFilesThroughIncludes) {
  r2r::plugins::converter::scratch_dir tmp("r2r-rootfs-test");
  const hostile_project p(tmp.path());
  build_checker::config cfg = rootfs_config();
  cfg.default_arch = {"gfx90a"};
  build_checker checker(cfg, host_.sdk_host());
  auto ctx = host_.context();
  const auto r = checker.convert(p.request(), ctx);
  for (const char* unit : {"abs.cu", "rel.cu", "link.cu"}) {
    const auto* b = find(r, unit, "gfx90a");
    ASSERT_NE(b, nullptr);
    EXPECT_THAT(b->log, Not(HasSubstr(p.token))) << unit << " read a host file: " << b->log;
    EXPECT_EQ(b->status, "failed") << b->log;
    EXPECT_EQ(b->failure_class, "missing_header") << b->log;
  }
  const auto* etc = find(r, "etc.cu", "gfx90a");
  ASSERT_NE(etc, nullptr);
  EXPECT_EQ(etc->status, "failed") << "the rootfs's /etc/debian_version is not a number";
  EXPECT_THAT(etc->log, HasSubstr("sid")) << "it read the rootfs's file, not the host's: " << etc->log;
  EXPECT_TRUE(fs::exists(p.secret)) << "and the host file is still there";
}

}  // namespace
