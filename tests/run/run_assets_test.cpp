// SPDX-License-Identifier: MIT
// External assets (issue 14 part 4), for real: a local Hugging Face Hub (hf_hub_server.py, the two
// endpoints the fetcher uses) runs in its own container on an *internal* network of a private
// dockerd; `repo2rocm run` reaches it as HF_ENDPOINT. The fixture's workload loads a model id the
// way huggingface_hub does offline (HF_HOME/hub/models--ORG--NAME/refs/main -> snapshots/<commit>/
// config.json, refusing to run unless HF_HUB_OFFLINE=1). The run lists the id in the plan with the
// line that asks for it, fetches it into RUN_DIR/assets, and the workload reads it at verify in
// the image rebuilt from the bundle, with no network. A second run of the same directory fetches
// nothing; a blob changed on disk is fetched again. An id the hub lacks, or a gated one without
// a token, ends the run not_verified naming the id and the file:line; the token never lands in
// the run directory. No AMD GPU here: the verifier's own verdict is no_device. Skips, saying why,
// when dockerd or the Debian + python3-pip test image is missing.
#include "network_service.hpp"
#include "run_fixture.hpp"

#include "../plan/fixture_repos.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>

namespace {

using nlohmann::json;
using r2r::test::parse_events;
using r2r::test::read_text;
using r2r::test::run_process;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

constexpr const char* image = "local/debian-pip";
constexpr const char* network = "r2r-test-hub";
constexpr const char* token = "hf_r2rTestToken0123456789abcdef";

// The workload line that asks for the model is line 12 of workload.py.
constexpr int asked_line = 12;
std::string workload(const std::string& id) {
  return "import json\n"
         "import os\n"
         "import pathlib\n"
         "\n"
         "def from_pretrained(repo_id):\n"
         "    assert os.environ.get('HF_HUB_OFFLINE') == '1', 'the hub must be offline'\n"
         "    root = pathlib.Path(os.environ['HF_HOME']) / 'hub' / ('models--' + repo_id.replace('/', '--'))\n"
         "    commit = (root / 'refs' / 'main').read_text().strip()\n"
         "    return json.loads((root / 'snapshots' / commit / 'config.json').read_text())\n"
         "\n"
         "if __name__ == '__main__':\n"
         "    config = from_pretrained('" +
         id +
         "')\n"
         "    print('hidden_size', config['hidden_size'])\n"
         "    print('final loss: 0.0451')\n";
}

struct hub_world {
  r2r::test::temp_dir tmp;
  std::unique_ptr<r2r::test::network_service> hub;
  std::string why;
  std::string endpoint;
  fs::path pipeline;
  fs::path offline_pipeline;  // the same, under the network policy `none`

  hub_world() {
    // The hub's tree: one public model (two files, one in a subdirectory) and one gated model.
    const fs::path tree = tmp.path() / "hub";
    r2r::test::write_file(tree / "models/r2r-org/tiny-model", "config.json", "{\"hidden_size\": 64}\n");
    r2r::test::write_file(tree / "models/r2r-org/tiny-model", "tokenizer/vocab.txt", "a\nb\n");
    r2r::test::write_file(tree / "models/r2r-org/gated-model", "config.json", "{\"hidden_size\": 32}\n");
    r2r::test::write_file(tree / "models/r2r-org/gated-model", ".gated", std::string(token) + "\n");
    // A hostile hub entry: it lists a file name that climbs out of the snapshot directory.
    r2r::test::write_file(tree / "models/r2r-org/evil-model", "config.json", "{}\n");
    r2r::test::write_file(tree / "models/r2r-org/evil-model", ".siblings",
                          "[\"config.json\", \"../../../../../../escaped.txt\"]\n");
    fs::copy_file(r2r::test::env_path("R2R_SOURCE_DIR") / "tests/run/hf_hub_server.py", tmp.path() / "server.py");
    r2r::test::service_options o;
    o.dir = tmp.path() / "dockerd";
    o.image = image;
    o.network = network;
    o.name = "r2r-hub";
    o.run_args = "-v '" + tree.string() + ":/srv:ro' -v '" + (tmp.path() / "server.py").string() + ":/server.py:ro'";
    o.command = "python3 /server.py 8080 /srv";
    o.ready_path = "/api/models/r2r-org/tiny-model/revision/main";
    hub = std::make_unique<r2r::test::network_service>(o);
    if (why = hub->why(); !why.empty()) return;
    endpoint = hub->url();
    // The built-in run pipeline with the docker sandbox alone (installs on the hub's network).
    json p = json::parse(read_text(r2r::test::env_path("R2R_SOURCE_DIR") / "configs/pipelines/run.json"));
    p.erase("$schema");
    json stages = json::array();
    for (auto s : p["pipeline"]) {
      if (s["name"] == "local") continue;
      if (s["name"] == "docker") s["config"] = {{"network", "install"}, {"network_mode", network}};
      stages.push_back(s);
    }
    p["pipeline"] = stages;
    pipeline = tmp.path() / "pipeline.json";
    std::ofstream(pipeline) << p.dump(2);
    for (auto& s : p["pipeline"])
      if (s["name"] == "docker") s["config"]["network"] = "none";
    offline_pipeline = tmp.path() / "pipeline-none.json";
    std::ofstream(offline_pipeline) << p.dump(2);
  }
  /// A git repository whose workload loads `id`.
  fs::path repo(const std::string& name, const std::string& id) {
    const fs::path r = tmp.path() / name;
    r2r::test::write_file(r, "README.md",
                          "# assets fixture\n\nRun the workload:\n\n```bash\npython3 workload.py\n```\n");
    r2r::test::write_file(r, "workload.py", workload(id));
    r2r::test::git_commit_all(r, "assets fixture");
    return r;
  }
  /// GET lines of the hub's log that fetched a file (resolve), so far.
  int resolves() const {
    const std::string logs = hub->logs();
    int n = 0;
    for (auto pos = logs.find("/resolve/"); pos != std::string::npos; pos = logs.find("/resolve/", pos + 1)) ++n;
    return n;
  }
};

class RunAssets : public ::testing::Test {
 protected:
  static hub_world& world() {
    static hub_world w;
    return w;
  }
  void SetUp() override {
    if (!world().why.empty()) GTEST_SKIP() << world().why;
  }
  static r2r::test::process_result run(const fs::path& repo, const fs::path& dir, const std::string& env = "",
                                       const std::string& extra = "", const fs::path& pipeline = {},
                                       const std::string& mode = "1") {
    return run_process("HF_ENDPOINT='" + world().endpoint + "' " + env + " " +
                       r2r::test::run_command(world().tmp.path(),
                                              "'" + repo.string() + "' --mode " + mode + " --json --base-image " +
                                                  image + " --pipeline '" +
                                                  (pipeline.empty() ? world().pipeline : pipeline).string() +
                                                  "' --run-dir '" + dir.string() + "'" + extra,
                                              world().hub->dockerd().socket()) +
                       " 2>&1");
  }
  static std::map<std::string, json> finished(const std::string& out) {
    std::map<std::string, json> f;
    for (const auto& e : parse_events(out))
      if (e["event"] == "stage_finished") f[e["stage"]] = e;
    return f;
  }
  /// Every file under `dir` whose bytes contain `needle`.
  static std::vector<std::string> files_holding(const fs::path& dir, const std::string& needle) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && !e.is_symlink() && read_text(e.path()).find(needle) != std::string::npos)
        out.push_back(e.path().string());
    return out;
  }
};

TEST_F(RunAssets, TheModelIsFetchedIntoTheHubLayoutAndTheWorkloadReadsItOfflineAtVerify) {
  const fs::path repo = world().repo("tiny", "r2r-org/tiny-model");
  const fs::path dir = world().tmp.path() / "tiny-run";
  const auto r = run(repo, dir, std::string("HF_TOKEN='") + token + "'");
  EXPECT_EQ(r.exit_code, 4) << r.out;  // no AMD GPU: no_device, and nothing else wrong

  // The plan lists the id with the line that asks for it.
  const json plan = json::parse(read_text(dir / "plan.json"));
  ASSERT_EQ(plan["assets"].size(), 1u) << plan["assets"].dump();
  EXPECT_EQ(plan["assets"][0]["id"], "r2r-org/tiny-model");
  EXPECT_EQ(plan["assets"][0]["from"], json::parse(R"([{"file":"workload.py","line":12}])"));
  EXPECT_EQ(plan["assets"][0]["from"][0]["line"], asked_line);

  // Fetched into the hub layout: refs/main -> the commit, snapshot files linked to sha256 blobs.
  auto f = finished(r.out);
  ASSERT_EQ(f["environment"]["status"], "ok") << f["environment"].dump();
  const json fetched = f["environment"]["results"]["assets"];
  ASSERT_EQ(fetched.size(), 1u) << fetched.dump();
  EXPECT_EQ(fetched[0]["status"], "fetched");
  EXPECT_EQ(fetched[0]["files"], 2);
  const fs::path model = dir / "assets/hf/hub/models--r2r-org--tiny-model";
  const std::string commit = read_text(model / "refs/main");
  EXPECT_EQ(commit, fetched[0]["commit"]);
  ASSERT_EQ(commit.size(), 40u);
  const fs::path config = model / "snapshots" / commit / "config.json";
  ASSERT_TRUE(fs::is_symlink(config));
  EXPECT_EQ(fs::read_symlink(config).parent_path(), fs::path("../../blobs"));
  EXPECT_EQ(read_text(config), "{\"hidden_size\": 64}\n");
  EXPECT_EQ(read_text(model / "snapshots" / commit / "tokenizer/vocab.txt"), "a\nb\n");

  // The executor's workload read it offline, and so did the re-run in the rebuilt image.
  EXPECT_THAT(read_text(dir / "execute/trajectory.jsonl"), HasSubstr("hidden_size 64"));
  EXPECT_EQ(f["verify"]["results"]["environment"], "rebuilt") << f["verify"].dump();
  EXPECT_EQ(f["verify"]["results"]["environment_probe"]["exit_code"], 0) << f["verify"].dump();
  EXPECT_EQ(f["verify"]["results"]["environment_probe"]["stdout_tail"], "final loss: 0.0451");

  // The token was sent (the hub logged an Authorization) but is written nowhere.
  EXPECT_THAT(world().hub->logs(), HasSubstr("auth=yes"));
  EXPECT_EQ(files_holding(dir, token), std::vector<std::string>{});
  EXPECT_THAT(r.out, Not(HasSubstr(token)));
}

TEST_F(RunAssets, ACachedAssetIsNotFetchedAgainUnlessItsBytesChanged) {
  const fs::path repo = world().repo("resume", "r2r-org/tiny-model");
  const fs::path dir = world().tmp.path() / "resume-run";
  const auto first = run(repo, dir, "", " --until environment");
  ASSERT_EQ(first.exit_code, 0) << first.out;
  ASSERT_EQ(finished(first.out)["environment"]["results"]["assets"][0]["status"], "fetched") << first.out;

  const int before = world().resolves();
  const auto again = run(repo, dir, "", " --until environment");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(finished(again.out)["environment"]["results"]["assets"][0]["status"], "cached") << again.out;
  EXPECT_EQ(world().resolves(), before);

  // A blob whose bytes changed on disk (same size) is fetched again; the other file is not.
  const json manifest = json::parse(read_text(dir / "assets/manifest.json"));
  const json file = manifest["assets"][0]["files"][0];
  const fs::path blob = dir / "assets/hf/hub/models--r2r-org--tiny-model/blobs" / file["sha256"].get<std::string>();
  std::string bytes = read_text(blob);
  bytes[0] = bytes[0] == 'X' ? 'Y' : 'X';
  std::ofstream(blob, std::ios::binary | std::ios::trunc) << bytes;
  const auto repaired = run(repo, dir, "", " --until environment");
  ASSERT_EQ(repaired.exit_code, 0) << repaired.out;
  const json a = finished(repaired.out)["environment"]["results"]["assets"][0];
  EXPECT_EQ(a["status"], "fetched") << a.dump();
  EXPECT_EQ(world().resolves(), before + 1);
  EXPECT_NE(read_text(blob), bytes);
}

TEST_F(RunAssets, AnIdTheHubDoesNotHaveEndsTheRunNotVerifiedNamingItAndWhereItIsAsked) {
  const fs::path repo = world().repo("absent", "r2r-org/absent-model");
  const fs::path dir = world().tmp.path() / "absent-run";
  const auto r = run(repo, dir);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  const auto events = parse_events(r.out);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["outcome"], "not_verified") << r.out;
  const std::string message = events.back()["message"];
  EXPECT_THAT(message, HasSubstr("r2r-org/absent-model"));
  EXPECT_THAT(message, HasSubstr("HTTP 404"));
  EXPECT_THAT(message, HasSubstr("workload.py:" + std::to_string(asked_line)));
  // Nothing ran on a workload that cannot have its model.
  EXPECT_EQ(finished(r.out).count("execute"), 0u);
}

TEST_F(RunAssets, AGatedModelIsNotVerifiedWithoutATokenAndFetchedWithOne) {
  const fs::path repo = world().repo("gated", "r2r-org/gated-model");
  const fs::path dir = world().tmp.path() / "gated-run";
  const auto r = run(repo, dir);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  const auto events = parse_events(r.out);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["outcome"], "not_verified") << r.out;
  EXPECT_THAT(events.back()["message"].get<std::string>(), HasSubstr("r2r-org/gated-model"));
  EXPECT_THAT(events.back()["message"].get<std::string>(), HasSubstr("gated or private (HTTP 401"));
  EXPECT_THAT(events.back()["message"].get<std::string>(), HasSubstr("HF_TOKEN"));

  const fs::path with = world().tmp.path() / "gated-token-run";
  const auto ok = run(repo, with, std::string("HF_TOKEN='") + token + "'", " --until environment");
  ASSERT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_EQ(finished(ok.out)["environment"]["results"]["assets"][0]["status"], "fetched");
  EXPECT_EQ(files_holding(with, token), std::vector<std::string>{});
}

TEST_F(RunAssets, AFileNameFromTheHubThatClimbsOutOfTheCacheIsRefused) {
  const fs::path repo = world().repo("evil", "r2r-org/evil-model");
  const fs::path dir = world().tmp.path() / "evil-run";
  const auto r = run(repo, dir, "", " --until environment");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  const json env = finished(r.out)["environment"];
  EXPECT_EQ(env["status"], "failed") << env.dump();
  EXPECT_THAT(env["message"].get<std::string>(), HasSubstr("'../../../../../../escaped.txt'"));
  EXPECT_THAT(env["message"].get<std::string>(), HasSubstr("not a plain relative path"));
  for (const auto& e : fs::recursive_directory_iterator(world().tmp.path()))
    EXPECT_NE(e.path().filename(), "escaped.txt") << e.path();
}

TEST_F(RunAssets, UnderTheNetworkPolicyNoneNothingIsFetchedAndTheRunIsNotVerified) {
  const fs::path repo = world().repo("offline", "r2r-org/tiny-model");
  const fs::path dir = world().tmp.path() / "offline-run";
  const int before = world().resolves();
  const auto r = run(repo, dir, "", "", world().offline_pipeline);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  const auto events = parse_events(r.out);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["outcome"], "not_verified") << r.out;
  EXPECT_THAT(events.back()["message"].get<std::string>(), HasSubstr("r2r-org/tiny-model"));
  EXPECT_THAT(events.back()["message"].get<std::string>(), HasSubstr("network policy is `none`"));
  EXPECT_EQ(world().resolves(), before);
  EXPECT_FALSE(fs::exists(dir / "assets"));
}

TEST_F(RunAssets, ModeZerosReadmeStepsReadTheFetchedModelOffline) {
  const fs::path repo = world().repo("mode0", "r2r-org/tiny-model");
  const fs::path dir = world().tmp.path() / "mode0-run";
  const auto r = run(repo, dir, "", "", {}, "0");
  EXPECT_EQ(r.exit_code, 4) << r.out;  // the README ran, with no ROCm device to say anything about
  EXPECT_EQ(finished(r.out)["execute"]["message"], "mode 0: all 1 steps ran") << r.out;
  EXPECT_THAT(read_text(dir / "mode0/commands.log"), HasSubstr("hidden_size 64"));
}

}  // namespace
