// SPDX-License-Identifier: MIT
// Issue 19 in r2r.sandbox.docker on a private engine, dockerd and Podman through its Docker API
// (plugins/sandbox/docker/test/engine_fixture.hpp: state and socket in a temporary directory of
// their own, outside the compared tree): the agent plants links in the bind-mounted workspace (x -> /etc, y -> /, z ->
// .., c -> a canary on the host) and writes, reads, checkpoints and rolls back through them (busybox's patch has no
// --batch, so apply_patch is covered by the local test). On the host the workspace's links point at the host's /etc and
// /, so every host-side step (the checkpoint tar, the rollback's extraction) must keep them as links and never follow
// one. Skips, saying why, only when the engine or busybox is missing or the engine cannot start.
#include "../../plugins/sandbox/docker/test/engine_fixture.hpp"
#include "containment_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

using nlohmann::json;
using ::testing::HasSubstr;

namespace r2r::test {
namespace {

using engine_fixture = plugins::sandbox::docker::testing::engine_fixture;
constexpr const char* image_tag = engine_fixture::image;

/// The parameter is the engine kind: "docker" or "podman".
class ContainmentEngine : public ContainmentFixture, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    ContainmentFixture::SetUp();
    if (geteuid() != 0) GTEST_SKIP() << GetParam() << " needs root here; run the suite as root (CI does)";
    engine = std::make_unique<engine_fixture>(GetParam());
    if (!engine->ok()) GTEST_SKIP() << GetParam() << " could not start here: " << engine->why();
  }
  void TearDown() override {
    engine.reset();
    ContainmentFixture::TearDown();
  }

  std::vector<json> run(const json& script) {
    // The sandbox's state stays out of the before/after comparison: it changes by design.
    dir_before = tree_listing(dir.path(), run_dir());
    for (auto it = dir_before.begin(); it != dir_before.end();) {
      it = it->first.rfind("sandbox-state", 0) == 0 ? dir_before.erase(it) : std::next(it);
    }
    json p = pipeline(script, default_guards(), json::object(),
                      json{{"socket", engine->socket()},
                           {"default_image", image_tag},
                           {"state_dir", (dir.path() / "sandbox-state").string()},
                           {"default_timeout_s", 60}});
    p["pipeline"].back()["use"] = "r2r.sandbox.docker";
    const auto file = dir.write("pipeline.json", p.dump(2));
    live = open_pipeline(file);
    EXPECT_TRUE(live.session);
    if (!live.session) return {};
    executor::run_options options;
    options.run_dir = run_dir();
    options.pipeline_file = file;
    options.image = image_tag;
    auto outcome = executor::run(*live.session, options);
    EXPECT_TRUE(outcome) << (outcome ? "" : outcome.error().to_string());
    return trajectory(run_dir());
  }

  void expect_nothing_outside_changed_but_the_sandbox_state() {
    EXPECT_EQ(tree_listing(canary), canary_before);
    EXPECT_EQ(tree_listing(hidden), hidden_before);
    auto now = tree_listing(dir.path(), run_dir());
    for (auto it = now.begin(); it != now.end();) {
      it = it->first.rfind("sandbox-state", 0) == 0 || it->first == "pipeline.json" ? now.erase(it) : std::next(it);
    }
    auto before = dir_before;
    before.erase("pipeline.json");
    EXPECT_EQ(now, before);
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path("/etc") / etc_probe));
    EXPECT_FALSE(std::filesystem::exists(canary / "probe.conf"));
    EXPECT_FALSE(std::filesystem::exists(run_dir() / "probe.conf"));
  }

  std::unique_ptr<engine_fixture> engine;
  live_pipeline live;
};

TEST_P(ContainmentEngine, LinksOutOfTheWorkspaceAreRefusedOrContainedAndCheckpointsKeepThemAsLinks) {
  const std::string c = canary.string();
  const json script = json::array({
      run_step(
          "ln -s /etc x && ln -s " + q(c) + " c && ln -s / y && ln -s .. z && ln -s " + q(c + "/secret") +
          " s && mkdir -p sub d && echo dd > d/f && ln -s sub in && mkfifo pipe && "
          "printf n > \"$(printf 'new\\nline')\" && printf b > \"$(printf 'bad\\377name')\" && printf d > ./-dash"),
      write_step("x/" + etc_probe, "owned\n"),
      write_step("y/etc/" + etc_probe, "owned\n"),
      write_step("z/probe.conf", "owned\n"),
      write_step("s", "replaced\n"),
      write_step("in/ok.txt", "ok\n"),
      json{{"type", "read_file"}, {"path", "in/ok.txt"}},
      json{{"type", "checkpoint"}, {"label", "links"}},
      run_step("rm -rf d sub in pipe && ln -s " + q(c) + " d && echo late > late.txt"),
      json{{"type", "rollback"}, {"to", "links"}},
      json{{"type", "read_file"}, {"path", "in/ok.txt"}},
      json{{"type", "give_up"}, {"reason", "done"}},
  });
  const auto lines = run(script);
  if (HasFatalFailure()) return;
  ASSERT_EQ(lines.size(), 12u);
  EXPECT_EQ(lines[0]["observation"]["exit_code"], 0) << lines[0].dump();
  for (std::size_t i : {1, 2, 3}) {
    EXPECT_NE(lines[i]["observation"]["exit_code"], 0) << lines[i].dump();
    EXPECT_THAT(lines[i]["observation"]["stderr"].get<std::string>(), HasSubstr("outside the workspace"));
  }
  const auto ws = run_dir() / "workspace";
  namespace fs = std::filesystem;
  EXPECT_EQ(lines[4]["observation"]["exit_code"], 0) << lines[4].dump();
  EXPECT_EQ(read_text(ws / "s"), "replaced\n");
  for (std::size_t i : {5, 7, 8, 9}) EXPECT_EQ(lines[i]["observation"]["exit_code"], 0) << lines[i].dump();
  EXPECT_EQ(lines[6]["observation"]["stdout"], "ok\n");
  EXPECT_EQ(lines[10]["observation"]["stdout"], "ok\n");
  EXPECT_EQ(fs::read_symlink(ws / "x"), "/etc");
  EXPECT_EQ(fs::read_symlink(ws / "y"), "/");
  EXPECT_EQ(fs::read_symlink(ws / "z"), "..");
  EXPECT_EQ(fs::read_symlink(ws / "c"), canary);
  EXPECT_EQ(fs::read_symlink(ws / "in"), "sub");
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(ws / "d")));
  EXPECT_EQ(read_text(ws / "d" / "f"), "dd\n");
  EXPECT_EQ(fs::symlink_status(ws / "pipe").type(), fs::file_type::fifo);
  EXPECT_EQ(read_text(ws / "new\nline"), "n");
  EXPECT_EQ(read_text(ws / "bad\377name"), "b");
  EXPECT_EQ(read_text(ws / "-dash"), "d");
  EXPECT_FALSE(fs::exists(ws / "late.txt"));
  expect_nothing_outside_changed_but_the_sandbox_state();
}

INSTANTIATE_TEST_SUITE_P(Engines, ContainmentEngine, ::testing::Values("docker", "podman"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace r2r::test
