// SPDX-License-Identifier: MIT
// Issue 19, attack first: an agent plants links in its workspace (x -> /etc, y -> /, z -> .., c ->
// a canary directory outside the workspace) and then uses write_file, apply_patch, read_file,
// checkpoint and rollback through them, in r2r.sandbox.local (bubblewrap) with the in-tree guards.
// Nothing outside the workspace may be read or written; links inside the workspace keep working.
// The canary lives in the build tree (not under /tmp, which the sandbox replaces by a tmpfs) and is
// bound read-only into the sandbox, so `mkdir -p c` succeeds inside it as `mkdir -p x` does for
// /etc: exactly the state in which the old host-side copy_in wrote through the link.
#include "containment_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using nlohmann::json;
using ::testing::HasSubstr;

namespace r2r::test {
namespace {

class ContainmentLocal : public ContainmentFixture {
 protected:
  // The in-tree guards and r2r.sandbox.local with the canary bound read-only.
  std::vector<json> run(const json& script) {
    json sandbox{{"default_timeout_s", 60}, {"ro_binds", default_ro_binds()}};
    sandbox["ro_binds"].push_back(canary.string());
    const auto file = dir.write("pipeline.json", pipeline(script, default_guards(), json::object(), sandbox).dump(2));
    live = open_pipeline(file);
    EXPECT_TRUE(live.session);
    if (!live.session) return {};
    executor::run_options options;
    options.run_dir = run_dir();
    options.pipeline_file = file;
    auto outcome = executor::run(*live.session, options);
    EXPECT_TRUE(outcome) << (outcome ? "" : outcome.error().to_string());
    return trajectory(run_dir());
  }
  live_pipeline live;
};

TEST_F(ContainmentLocal, WriteFileAndApplyPatchThroughLinksOutOfTheWorkspaceAreRefused) {
  const std::string c = canary.string();
  const json script = json::array({
      run_step("ln -s /etc x && ln -s " + q(c) + " c && ln -s / y && ln -s .. z && ln -s " + q(c + "/secret") +
               " s && ln -s nowhere dangling && ln -s loop loop"),
      write_step("x/" + etc_probe, "owned\n"),
      write_step("c/probe.conf", "owned\n"),
      write_step("y" + c + "/probe-y.conf", "owned\n"),
      write_step("z/probe.conf", "owned\n"),
      write_step("s", "replaced\n"),
      write_step("dangling/f", "x"),
      write_step("loop/f", "x"),
      json{{"type", "apply_patch"}, {"patch", "--- a/c/secret\n+++ b/c/secret\n@@ -1 +1 @@\n-do not read\n+owned\n"}},
      json{{"type", "give_up"}, {"reason", "done"}},
  });
  const auto lines = run(script);
  ASSERT_EQ(lines.size(), 10u);
  for (std::size_t i = 1; i <= 8; ++i) ASSERT_EQ(lines[i]["decision"]["decision"], "allow") << lines[i].dump();
  for (std::size_t i : {1, 2, 3, 4}) {
    EXPECT_NE(lines[i]["observation"]["exit_code"], 0) << lines[i].dump();
    EXPECT_THAT(lines[i]["observation"]["stderr"].get<std::string>(), HasSubstr("outside the workspace"));
  }
  // A link in the last component is replaced by the new file, never written through.
  EXPECT_EQ(lines[5]["observation"]["exit_code"], 0) << lines[5].dump();
  EXPECT_FALSE(std::filesystem::is_symlink(run_dir() / "workspace" / "s"));
  EXPECT_EQ(read_text(run_dir() / "workspace" / "s"), "replaced\n");
  for (std::size_t i : {6, 7, 8}) EXPECT_NE(lines[i]["observation"]["exit_code"], 0) << lines[i].dump();
  expect_nothing_outside_changed();
}

TEST_F(ContainmentLocal, LinksInsideTheWorkspaceKeepWorkingAndCheckpointsKeepLinksAsLinks) {
  const std::string c = canary.string();
  const json script = json::array({
      run_step(
          "mkdir -p sub d && echo one > sub/f.txt && echo dd > d/f && ln -s sub in && ln -s f.txt sub/alias && "
          "ln -s " +
          q(c) + " c && ln -s " + q(hidden.string()) +
          " h && ln -s .. z && ln -s / y && mkfifo pipe && ln sub/f.txt hard && "
          "printf n > \"$(printf 'new\\nline')\" && printf b > \"$(printf 'bad\\377name')\" && printf d > ./-dash"),
      write_step("in/ok.txt", "ok\n"),
      json{{"type", "apply_patch"}, {"patch", "--- a/in/ok.txt\n+++ b/in/ok.txt\n@@ -1 +1 @@\n-ok\n+patched\n"}},
      json{{"type", "read_file"}, {"path", "in/ok.txt"}},
      json{{"type", "read_file"}, {"path", "h/secret"}},
      json{{"type", "checkpoint"}, {"label", "links"}},
      // After the checkpoint the agent swaps the real directory d for a link to the canary.
      run_step("rm -rf d sub in pipe && ln -s " + q(c) + " d && echo late > late.txt"),
      json{{"type", "rollback"}, {"to", "links"}},
      json{{"type", "read_file"}, {"path", "in/ok.txt"}},
      json{{"type", "give_up"}, {"reason", "done"}},
  });
  const auto lines = run(script);
  ASSERT_EQ(lines.size(), 10u);
  EXPECT_EQ(lines[0]["observation"]["exit_code"], 0) << lines[0].dump();
  EXPECT_EQ(lines[1]["observation"]["exit_code"], 0) << lines[1].dump();
  EXPECT_EQ(read_text(run_dir() / "workspace" / "sub" / "ok.txt"), "patched\n");
  EXPECT_EQ(lines[2]["observation"]["exit_code"], 0) << lines[2].dump();
  EXPECT_EQ(lines[3]["observation"]["stdout"], "patched\n");
  EXPECT_NE(lines[4]["observation"]["exit_code"], 0) << lines[4].dump();  // not visible in the sandbox
  EXPECT_EQ(lines[5]["observation"]["exit_code"], 0) << lines[5].dump();
  EXPECT_EQ(lines[7]["observation"]["exit_code"], 0) << lines[7].dump();
  EXPECT_EQ(lines[8]["observation"]["stdout"], "patched\n");

  const auto ws = run_dir() / "workspace";
  namespace fs = std::filesystem;
  EXPECT_EQ(fs::read_symlink(ws / "in"), "sub");
  EXPECT_EQ(fs::read_symlink(ws / "sub" / "alias"), "f.txt");
  EXPECT_EQ(fs::read_symlink(ws / "c"), canary);
  EXPECT_EQ(fs::read_symlink(ws / "z"), "..");
  EXPECT_EQ(fs::read_symlink(ws / "y"), "/");
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(ws / "d")));
  EXPECT_EQ(read_text(ws / "d" / "f"), "dd\n");
  EXPECT_EQ(fs::symlink_status(ws / "pipe").type(), fs::file_type::fifo);
  EXPECT_EQ(read_text(ws / "new\nline"), "n");
  EXPECT_EQ(read_text(ws / "bad\377name"), "b");
  EXPECT_EQ(read_text(ws / "-dash"), "d");
  EXPECT_EQ(read_text(ws / "hard"), "one\n");
  EXPECT_FALSE(fs::exists(ws / "late.txt"));
  // The archives hold the links, not what they point at.
  for (const auto& entry : fs::directory_iterator(run_dir() / "checkpoints")) {
    EXPECT_THAT(read_text(entry.path()), ::testing::Not(HasSubstr("hidden secret")));
  }
  expect_nothing_outside_changed();
}

}  // namespace
}  // namespace r2r::test
