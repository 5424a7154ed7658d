// SPDX-License-Identifier: MIT
// `repo2rocm plan` as a process on real git repositories built in temporary directories: plans,
// ranking order and filters, pinning, the clone cache, submodules, and the errors.
#include "fixture_repos.hpp"

#include "../unit/test_support.hpp"

#include <r2r/planning/plan.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

namespace {

using nlohmann::json;
using r2r::test::run_process;
using ::testing::HasSubstr;
using ::testing::Not;

class PlanCli : public ::testing::Test {
 protected:
  r2r::test::temp_dir tmp;
  std::filesystem::path repo = tmp.path() / "repo";
  std::filesystem::path out = tmp.path() / "out";

  r2r::test::process_result plan(const std::string& source, const std::string& extra = "") {
    const auto exe = r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm";
    return run_process(exe.string() + " --plugin-path " + r2r::test::plugin_dir().string() + " plan '" + source +
                       "' --out '" + out.string() + "' --cache-dir '" + (tmp.path() / "cache").string() +
                       "' --state-dir '" + (tmp.path() / "state").string() + "' " + extra);
  }
  json read_json(const std::string& name) {
    std::ifstream in(out / name);
    return json::parse(in);
  }
  std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string make(void (*fixture)(const std::filesystem::path&)) {
    fixture(repo);
    return r2r::test::git_commit_all(repo, "fixture");
  }
};

bool supports(const std::string& ref, const std::string& arch) {
  const auto& cat = r2r::planning::builtin_knowledge().catalog;
  for (const auto& img : cat.at("images")) {
    for (const auto& t : img.at("tags")) {
      if (img.at("image").get<std::string>() + ":" + t.at("tag").get<std::string>() != ref) continue;
      for (const auto& g : t.at("gfx")) {
        if (g == arch) return true;
      }
    }
  }
  return false;
}

TEST_F(PlanCli, TorchTrainingRepoPlanOnMi300) {
  const std::string sha = make(r2r::test::make_torch_training_repo);
  const auto r = plan(repo.string(), "--arch gfx942");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("frameworks  torch"));
  EXPECT_THAT(r.out, HasSubstr("1. rocm/pytorch:"));
  EXPECT_THAT(r.out, HasSubstr("workload    train: CUDA_VISIBLE_DEVICES=0 python train.py --epochs 3"));
  const auto fp = read_json("fingerprint.json");
  EXPECT_EQ(fp["repository"]["commit"], sha);
  const auto p = read_json("plan.json");
  EXPECT_EQ(p["base_image"]["image"], "rocm/pytorch");
  ASSERT_EQ(p["candidates"].size(), 3u);
  EXPECT_GE(p["candidates"][0]["score"].get<double>(), p["candidates"][1]["score"].get<double>());
  std::string all_steps;
  for (const auto& s : p["install_steps"]) all_steps += s["command"].get<std::string>() + "\n";
  EXPECT_THAT(all_steps, Not(HasSubstr("nvidia-")));
  EXPECT_THAT(all_steps, Not(HasSubstr("+cu")));
  EXPECT_THAT(all_steps, Not(HasSubstr("'torch")));
  EXPECT_THAT(all_steps, Not(HasSubstr("download.pytorch.org")));
  EXPECT_THAT(all_steps, HasSubstr("GPU_ARCHS=gfx942"));  // flash-attn built for the arch
  EXPECT_THAT(all_steps, HasSubstr("--no-build-isolation --no-deps -c /opt/r2r/image-constraints.txt -e ."));
  EXPECT_EQ(p["install_steps"][0]["id"], "image-constraints");
  bool ext = false;
  for (const auto& k : p["kernel_builds"])
    ext = ext || (k["kind"] == "setup_extension" && k["name"] == "fused_attn_cuda");
  EXPECT_TRUE(ext);
  EXPECT_EQ(p["workload"]["kind"], "train");
  EXPECT_EQ(p["metric"]["name"], "accuracy");
  EXPECT_EQ(p["metric"]["tolerance"]["kind"], "absolute");
  EXPECT_EQ(p["metric"]["direction"], "higher");
  const std::string dockerfile = read_text(out / "Dockerfile");
  EXPECT_THAT(dockerfile, HasSubstr("FROM rocm/pytorch:"));
  EXPECT_THAT(dockerfile, HasSubstr("PYTORCH_ROCM_ARCH=\"gfx942\""));
  EXPECT_THAT(dockerfile, HasSubstr("--offload-arch=gfx942"));
  EXPECT_THAT(dockerfile, HasSubstr("org.opencontainers.image.revision=\"" + sha + "\""));
  const auto listing = run_process("tar -tf '" + (out / "repo.tar").string() + "'");
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_THAT(listing.out, HasSubstr("\ncsrc/attn.cu\n"));
  EXPECT_THAT(listing.out, Not(HasSubstr(".git")));
}

TEST_F(PlanCli, Gfx950HostNeverGetsAnImageWithoutGfx950) {
  make(r2r::test::make_torch_training_repo);
  const auto r = plan(repo.string(), "--arch mi355x");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto p = read_json("plan.json");
  EXPECT_EQ(p["arch"], "gfx950");
  ASSERT_FALSE(p["candidates"].empty());
  for (const auto& c : p["candidates"]) {
    EXPECT_TRUE(supports(c["ref"], "gfx950")) << c["ref"];
  }
  EXPECT_TRUE(supports(p["base_image"]["ref"], "gfx950"));
}

TEST_F(PlanCli, JaxPoetryAndVllmReposGetTheirImages) {
  for (auto [fixture, image] :
       {std::pair{&r2r::test::make_jax_repo, "rocm/jax"}, std::pair{&r2r::test::make_poetry_repo, "rocm/pytorch"},
        std::pair{&r2r::test::make_vllm_server_repo, "rocm/vllm"}}) {
    std::filesystem::remove_all(repo);
    make(fixture);
    const auto r = plan(repo.string(), "--arch gfx942");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto p = read_json("plan.json");
    EXPECT_EQ(p["base_image"]["image"], image) << r.out;
    EXPECT_FALSE(p["workload"].is_null()) << r.out;
  }
  // The vLLM README states two metrics: ambiguous, so no Mode 2 target.
  EXPECT_TRUE(read_json("plan.json")["metric"].is_null());
  EXPECT_THAT(read_json("plan.json")["metric_note"].get<std::string>(), HasSubstr("ambiguous"));
  EXPECT_EQ(read_json("plan.json")["workload"]["command"], "vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000");
}

TEST_F(PlanCli, HelpOnlyAndNothingRunnableGiveNoWorkload) {
  for (auto fixture : {&r2r::test::make_help_only_repo, &r2r::test::make_nothing_runnable_repo}) {
    std::filesystem::remove_all(repo);
    make(fixture);
    const auto r = plan(repo.string(), "--arch gfx942");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto p = read_json("plan.json");
    EXPECT_TRUE(p["workload"].is_null()) << p["workload"].dump();
    bool blocking = false;
    for (const auto& h : p["hazards"])
      blocking = blocking || (h["kind"] == "no_workload" && h["severity"] == "blocking");
    EXPECT_TRUE(blocking);
    EXPECT_THAT(read_text(out / "Dockerfile"), Not(HasSubstr("--help")));
  }
}

TEST_F(PlanCli, MalformedDependencyFilesAreReportedAndThePlanIsWritten) {
  make(r2r::test::make_malformed_repo);
  const auto r = plan(repo.string(), "--arch gfx942");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto p = read_json("plan.json");
  std::set<std::string> where;
  for (const auto& h : p["hazards"]) {
    if (h["kind"] == "malformed_file")
      where.insert(h["file"].get<std::string>() + ":" + std::to_string(h["line"].get<int>()));
  }
  EXPECT_TRUE(where.count("requirements.txt:3")) << p["hazards"].dump();
  EXPECT_TRUE(where.count("environment.yml:4"));
  EXPECT_TRUE(where.count("setup.cfg:4"));
  EXPECT_FALSE(p["workload"].is_null());
}

TEST_F(PlanCli, CommitPinningBySha_Tag_BranchAndTheCacheFetches) {
  r2r::test::write_file(repo, "requirements.txt", "torch\neinops\n");
  r2r::test::write_file(repo, "train.py", "import torch\nif __name__ == '__main__':\n    pass\n");
  const std::string v1 = r2r::test::git_commit_all(repo, "v1");
  r2r::test::git(repo, "tag v1");
  r2r::test::git(repo, "branch old");
  r2r::test::write_file(repo, "requirements.txt", "torch\ntimm\n");
  const std::string v2 = r2r::test::git_commit_all(repo, "v2");
  const std::string url = "file://" + repo.string();
  for (const auto& ref : {std::string("v1"), std::string("old"), v1.substr(0, 10)}) {
    const auto r = plan(url, "--commit " + ref);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto fp = read_json("fingerprint.json");
    EXPECT_EQ(fp["repository"]["commit"], v1) << ref;
    EXPECT_THAT(fp["desired_packages"].dump(), HasSubstr("einops")) << "scanned at the pinned commit, not HEAD";
    EXPECT_THAT(fp["desired_packages"].dump(), Not(HasSubstr("timm")));
  }
  // Without --commit: the default branch head; the existing clone is fetched, not re-cloned.
  const auto cached = std::distance(std::filesystem::directory_iterator(tmp.path() / "cache"), {});
  ASSERT_EQ(plan(url).exit_code, 0);
  EXPECT_EQ(read_json("fingerprint.json")["repository"]["commit"], v2);
  r2r::test::write_file(repo, "extra.py", "");
  const std::string v3 = r2r::test::git_commit_all(repo, "v3");
  ASSERT_EQ(plan(url).exit_code, 0);
  EXPECT_EQ(read_json("fingerprint.json")["repository"]["commit"], v3);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path() / "cache"), {}), cached);
}

TEST_F(PlanCli, SubmodulesAreCheckedOutRecursively) {
  const auto sub = tmp.path() / "sub";
  r2r::test::write_file(sub, "kernels/op.cu", "__global__ void k() {}\n");
  r2r::test::git_commit_all(sub, "sub");
  make(r2r::test::make_help_only_repo);
  r2r::test::git(repo, "-c protocol.file.allow=always submodule add -q '" + sub.string() + "' third_party/sub");
  r2r::test::git(repo, "commit -q -m sub");
  // A submodule naming a path on this machine is refused unless the user opts in (issue 19: a
  // repository could name any repository here), like git's protocol.file.allow.
  const auto refused = plan(repo.string(), "--arch gfx942");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("R2R_ALLOW_LOCAL_SUBMODULES=1"));
  ::setenv("R2R_ALLOW_LOCAL_SUBMODULES", "1", 1);
  const auto r = plan(repo.string(), "--arch gfx942");
  ::unsetenv("R2R_ALLOW_LOCAL_SUBMODULES");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(run_process("tar -tf '" + (out / "repo.tar").string() + "'").out,
              HasSubstr("third_party/sub/kernels/op.cu"));
  EXPECT_THAT(read_json("fingerprint.json")["kernels"].dump(), HasSubstr("third_party/sub/kernels/op.cu"));
}

TEST_F(PlanCli, ImagesThatFailedTwiceOnThisArchAreFilteredOut) {
  make(r2r::test::make_torch_training_repo);
  ASSERT_EQ(plan(repo.string(), "--arch gfx942").exit_code, 0);
  const std::string first = read_json("plan.json")["base_image"]["ref"];
  r2r::planning::record_image_failure(tmp.path() / "state", "gfx942", first, "container_start");
  ASSERT_EQ(plan(repo.string(), "--arch gfx942").exit_code, 0);
  EXPECT_EQ(read_json("plan.json")["base_image"]["ref"], first);
  EXPECT_EQ(r2r::planning::record_image_failure(tmp.path() / "state", "gfx942", first, "container_start"), 2);
  ASSERT_EQ(plan(repo.string(), "--arch gfx942").exit_code, 0);
  EXPECT_NE(read_json("plan.json")["base_image"]["ref"], first);
}

TEST_F(PlanCli, PipelineRankStageAndJsonOutput) {
  make(r2r::test::make_vllm_server_repo);
  const auto pipeline = r2r::test::env_path("R2R_SOURCE_DIR") / "configs" / "pipelines" / "plan.json";
  const auto r = plan(repo.string(), "--arch gfx942 --json --pipeline '" + pipeline.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto j = json::parse(r.out);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_THAT(j["base_image"].get<std::string>(), HasSubstr("rocm/vllm:"));
}

TEST_F(PlanCli, MissingPathIsAUsageError) {
  const auto r = plan((tmp.path() / "nope").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no such path"));
}

// Issue 18: a plain directory (a downloaded archive, no .git) is planned, pinned by a content hash
// of its files, with a note that no commit pins it; nothing is written into it.
TEST_F(PlanCli, PlainDirectoryPlansPinnedByContentHash) {
  r2r::test::make_torch_training_repo(repo);
  const auto before = run_process("cd '" + repo.string() + "' && find . | sort").out;
  const auto r = plan(repo.string(), "--arch gfx942");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("no commit of the project pins it"));
  EXPECT_EQ(run_process("cd '" + repo.string() + "' && find . | sort").out, before) << "intake wrote into the source";
  const auto p = read_json("plan.json");
  const std::string hash = p["repository"]["content_hash"];
  EXPECT_THAT(hash, ::testing::MatchesRegex("git-tree:[0-9a-f]{40}"));
  ASSERT_EQ(p["notes"].size(), 1u);
  EXPECT_EQ(p["notes"][0]["kind"], "unpinned_directory");
  EXPECT_THAT(run_process("tar -tf '" + (out / "repo.tar").string() + "'").out, HasSubstr("csrc/attn.cu"));
  // Same files, same pin; one changed byte, another pin.
  const std::string commit = p["repository"]["commit"];
  ASSERT_EQ(plan(repo.string(), "--arch gfx942").exit_code, 0);
  EXPECT_EQ(read_json("plan.json")["repository"]["commit"], commit);
  r2r::test::write_file(repo, "csrc/attn.cpp", "#include <torch/extension.h>\n// changed\n");
  ASSERT_EQ(plan(repo.string(), "--arch gfx942").exit_code, 0);
  EXPECT_NE(read_json("plan.json")["repository"]["content_hash"], hash);
}

TEST_F(PlanCli, PlainDirectoryWithCommitAndAFileAreUsageErrors) {
  r2r::test::write_file(repo, "a.py", "");
  const auto r = plan(repo.string(), "--commit v1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("plain directory (no .git)"));
  const auto f = plan((repo / "a.py").string());
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_THAT(f.err, HasSubstr("is not a git repository"));
}

// Issue 18: a submodule that cannot be fetched (offline, private, history rewritten) is a warning in
// the plan, and planning goes on with the rest of the tree.
TEST_F(PlanCli, UnreachableSubmoduleIsAWarningNotAFailure) {
  make(r2r::test::make_torch_training_repo);
  r2r::test::write_file(repo, ".gitmodules",
                        "[submodule \"src/cutlass\"]\n\tpath = src/cutlass\n\turl = http://127.0.0.1:1/cutlass.git\n");
  r2r::test::git(repo, "update-index --add --cacheinfo 160000," + std::string(40, '1') + ",src/cutlass");
  r2r::test::git(repo, "add .gitmodules");
  r2r::test::git(repo, "commit -q -m cutlass");
  const auto r = plan(repo.string(), "--arch gfx942");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("submodule src/cutlass not fetched: kernels inside are not scanned"));
  const auto p = read_json("plan.json");
  ASSERT_EQ(p["notes"].size(), 1u);
  EXPECT_EQ(p["notes"][0]["kind"], "submodule_not_fetched");
  EXPECT_EQ(p["notes"][0]["path"], "src/cutlass");
  bool warning = false;
  for (const auto& h : p["hazards"])
    warning = warning || (h["kind"] == "submodule_not_fetched" && h["severity"] == "warning");
  EXPECT_TRUE(warning);
  EXPECT_FALSE(p["workload"].is_null());  // the rest of the repository was planned
}

TEST_F(PlanCli, UnknownCommitIsAnError) {
  make(r2r::test::make_jax_repo);
  const auto r = plan(repo.string(), "--commit no-such-tag");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("commit 'no-such-tag' was not found"));
  EXPECT_FALSE(std::filesystem::exists(out / "plan.json"));
}

TEST_F(PlanCli, UnreachableUrlFailsInBoundedTimeWithoutLeakingCredentials) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = plan("https://user:s3cret-token@127.0.0.1:9/org/repo.git");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot reach 127.0.0.1:9"));
  EXPECT_THAT(r.err + r.out, Not(HasSubstr("s3cret")));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
}

TEST_F(PlanCli, BadArchIsAUsageError) {
  make(r2r::test::make_jax_repo);
  const auto r = plan(repo.string(), "--arch 9.4.2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--arch must be a gfx target"));
}

}  // namespace
