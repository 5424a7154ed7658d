// SPDX-License-Identifier: MIT
// The environment that ships is the one verified: `repo2rocm run` (Mode 1) in a private dockerd on
// the Debian + python3-pip test image, with a PEP 503 index of two wheels (r2r-app depends on
// r2r-base; make_package_index.py) served by a container on an *internal* network the test
// creates, which the pipeline's docker sandbox uses for installs. The fixture's workload imports
// r2r_app under a name the planner cannot see, so the plan has no step for it; the playbook
// installs it (a `run` step that is a package install, so it alone gets the network and the index). The verify stage
// rebuilds the bundle's Dockerfile (the install is a step with the index as ARGs) and the workload imports the packages
// there. The same run with that step taken out of the record by hand ends `not_verified: environment not reproducible`.
// No AMD GPU here: the verifier's own verdict is no_device; the assertions are on the stage's
// rebuild record. Skips, saying why, when dockerd or the test image is missing.
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
namespace fs = std::filesystem;

constexpr const char* image = "local/debian-pip";
constexpr const char* network = "r2r-test-index";
constexpr const char* install = "python3 -m pip install --no-cache-dir --disable-pip-version-check r2r-app";

struct env_world {
  r2r::test::temp_dir tmp;
  std::unique_ptr<r2r::test::network_service> index_server;
  std::string why;
  std::string index_url;
  fs::path repo;
  fs::path pipeline;

  env_world() {
    if (why = r2r::test::private_dockerd_blocker(); !why.empty()) return;
    const fs::path index = tmp.path() / "index";
    const auto made = run_process(
        "/usr/bin/python3 '" +
        (r2r::test::env_path("R2R_SOURCE_DIR") / "plugins/sandbox/common/test/make_package_index.py").string() + "' '" +
        index.string() + "'");
    if (made.exit_code != 0) {
      why = "make_package_index.py failed: " + made.err;
      return;
    }
    r2r::test::service_options o;
    o.dir = tmp.path() / "dockerd";
    o.image = image;
    o.network = network;
    o.name = "r2r-index";
    o.run_args = "-v '" + index.string() + ":/srv:ro'";
    o.command = "python3 -m http.server 8080 --directory /srv";
    o.ready_path = "/simple/";
    index_server = std::make_unique<r2r::test::network_service>(o);
    if (why = index_server->why(); !why.empty()) return;
    index_url = index_server->url() + "/simple";
    repo = tmp.path() / "env-fixture";
    r2r::test::write_file(repo, "README.md",
                          "# env fixture\n\nRun the workload:\n\n```bash\npython3 workload.py\n```\n");
    r2r::test::write_file(repo, "workload.py",
                          "import importlib\n"
                          "app = importlib.import_module('r2r_' + 'app')\n"
                          "print('imported', app.VALUE)\nprint('final loss: 0.0451')\n");
    r2r::test::git_commit_all(repo, "env fixture");
    // The built-in run pipeline with the sandbox on the index's network and the install as a step.
    json p = json::parse(read_text(r2r::test::env_path("R2R_SOURCE_DIR") / "configs/pipelines/run.json"));
    p.erase("$schema");
    json stages = json::array();
    for (auto s : p["pipeline"]) {
      if (s["name"] == "local") continue;
      if (s["name"] == "docker")
        s["config"] = {
            {"network", "install"}, {"network_mode", network}, {"package_index", {{"index_url", index_url}}}};
      if (s["name"] == "policy") s["config"] = {{"extra_steps", {{{"id", "deps"}, {"command", install}}}}};
      stages.push_back(s);
    }
    p["pipeline"] = stages;
    pipeline = tmp.path() / "pipeline.json";
    std::ofstream(pipeline) << p.dump(2);
  }
};

class RunEnvironment : public ::testing::Test {
 protected:
  static env_world& world() {
    static env_world w;
    return w;
  }
  void SetUp() override {
    if (!world().why.empty()) GTEST_SKIP() << world().why;
  }
  static r2r::test::process_result run(const fs::path& dir, const std::string& extra = "") {
    return run_process(r2r::test::run_command(world().tmp.path(),
                                              "'" + world().repo.string() + "' --mode 1 --json --base-image " + image +
                                                  " --pipeline '" + world().pipeline.string() + "' --run-dir '" +
                                                  dir.string() + "'" + extra,
                                              world().index_server->dockerd().socket()) +
                       " 2>&1");
  }
  static std::map<std::string, json> finished(const std::string& out) {
    std::map<std::string, json> f;
    for (const auto& e : parse_events(out))
      if (e["event"] == "stage_finished") f[e["stage"]] = e;
    return f;
  }
};

TEST_F(RunEnvironment, TheExecutorsInstallIsRebuiltFromTheBundleAndTheWorkloadImportsThere) {
  const fs::path dir = world().tmp.path() / "honest";
  const auto r = run(dir);
  EXPECT_EQ(r.exit_code, 4) << r.out;  // no AMD GPU: no_device, and nothing else wrong
  auto f = finished(r.out);
  ASSERT_EQ(f["execute"]["status"], "ok") << r.out;
  // The executor installed from the index (the install alone had the network).
  bool installed = false;
  for (const auto& t : parse_events(read_text(dir / "execute/trajectory.jsonl")))
    if (t.contains("install") && t["install"]["command"] == install && t["observation"]["exit_code"] == 0) {
      installed = true;
      EXPECT_EQ(t["install"]["index"]["index_url"], world().index_url);
    }
  EXPECT_TRUE(installed) << read_text(dir / "execute/trajectory.jsonl");

  const json verify = f["verify"];
  EXPECT_EQ(verify["results"]["verdict"], "no_device") << verify.dump() << read_text(dir / "verify.json");
  EXPECT_EQ(verify["results"]["environment"], "rebuilt") << verify.dump();
  EXPECT_EQ(verify["results"]["environment_probe"]["exit_code"], 0) << verify.dump();
  EXPECT_EQ(verify["results"]["environment_probe"]["stdout_tail"], "final loss: 0.0451") << verify.dump();
  const json record = json::parse(read_text(dir / "verify.json"))["environment"];
  EXPECT_EQ(record["status"], "rebuilt");
  EXPECT_EQ(record["network"], network);
  const std::string rebuilt = record["image"];
  ASSERT_THAT(rebuilt, HasSubstr("sha256:"));

  // The bundle's Dockerfile has the install as a step with its index as build arguments, and it
  // is the Dockerfile that was rebuilt; the bundle names the verified image.
  ASSERT_EQ(f["bundle"]["status"], "ok") << f["bundle"].dump();
  const std::string dockerfile = read_text(dir / "bundle/Dockerfile");
  EXPECT_THAT(dockerfile, HasSubstr("ARG PIP_INDEX_URL=\"" + world().index_url + "\"\n"));
  EXPECT_THAT(dockerfile, HasSubstr("RUN " + std::string(install) + "\n"));
  EXPECT_EQ(dockerfile, read_text(dir / "verify/context/Dockerfile"));
  EXPECT_EQ(json::parse(read_text(dir / "bundle/report.json"))["versions"]["image"], rebuilt);
  // The run's images are gone with it; the bundle alone rebuilds the same environment (the
  // index is the Dockerfile's ARG default), and there, offline, the packages import.
  const auto rebuilt_by_hand = world().index_server->dockerd().docker(
      std::string("build -q --network ") + network + " -t local/r2r-env-bundle '" + (dir / "bundle").string() + "'");
  ASSERT_EQ(rebuilt_by_hand.exit_code, 0) << rebuilt_by_hand.out << rebuilt_by_hand.err;
  const auto imported = world().index_server->dockerd().docker(
      "run --rm --network none local/r2r-env-bundle python3 -c 'import r2r_app; print(r2r_app.VALUE)'");
  EXPECT_EQ(imported.out, "app-ok+base-ok\n") << imported.err;
}

TEST_F(RunEnvironment, TheSameRunWithTheInstallStepRemovedIsNotReproducible) {
  const fs::path dir = world().tmp.path() / "removed";
  const auto first = run(dir, " --until execute");
  ASSERT_EQ(first.exit_code, 0) << first.out;
  // Take the install step out of the record the Dockerfile is rendered from, by hand.
  const fs::path trajectory = dir / "execute/trajectory.jsonl";
  std::string edited;
  int removed = 0;
  for (auto t : parse_events(read_text(trajectory))) {
    if (t.contains("install")) t.erase("install"), ++removed;
    edited += t.dump() + "\n";
  }
  ASSERT_EQ(removed, 1) << read_text(trajectory);
  std::ofstream(trajectory, std::ios::trunc) << edited;

  const auto r = run(dir);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  const auto events = parse_events(r.out);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["outcome"], "not_verified") << r.out;
  EXPECT_THAT(events.back()["message"].get<std::string>(), HasSubstr("environment not reproducible"));
  EXPECT_THAT(events.back()["message"].get<std::string>(), HasSubstr("No module named 'r2r_app'"));
  const json record = json::parse(read_text(dir / "verify.json"))["environment"];
  EXPECT_EQ(record["status"], "not_reproducible") << record.dump();
  EXPECT_NE(record["probe"]["exit_code"], 0);
  EXPECT_THAT(read_text(dir / "verify/context/Dockerfile"), ::testing::Not(HasSubstr("r2r-app")));
}

}  // namespace
