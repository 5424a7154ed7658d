// SPDX-License-Identifier: MIT
// command_view: one command text for every command-running action type, scripts the agent wrote
// expanded (and only those), Python os.system/subprocess lines read, computed commands listed.
#include <r2r/guards/command_view.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using r2r::plugins::guard::command_text;
using r2r::plugins::guard::known_files;
using r2r::plugins::guard::view_command;
using ::testing::HasSubstr;

r2r::sdk::guard::action action(const nlohmann::json& j) {
  return j.get<r2r::sdk::guard::action>();
}

void wrote(known_files& files, const std::string& path, const std::string& content) {
  r2r::sdk::guard::observe_request r;
  r.action = action({{"type", "write_file"}, {"path", path}, {"content", content}});
  files.observe(r);
}

bool runs(const r2r::plugins::guard::command_view& v, const std::string& program, const std::string& arg) {
  for (const auto& c : v.commands)
    if (!c.argv.empty() && r2r::shell::program_name(c.argv[0]) == program)
      for (const auto& a : c.argv)
        if (a == arg) return true;
  return false;
}

TEST(CommandView, EveryCommandTypeGivesItsCommandAndInstallPackagesBecomeTheExecutorsCommand) {
  for (const char* type : {"run", "run_workload", "build_kernel", "install"})
    EXPECT_EQ(command_text(action({{"type", type}, {"command", "pip install x"}})), "pip install x") << type;
  EXPECT_EQ(command_text(action({{"type", "install"}, {"manager", "pip"}, {"packages", {"a==1", "it's"}}})),
            "pip install 'a==1' 'it'\\''s'");
  EXPECT_EQ(command_text(action({{"type", "install"}, {"manager", "apt"}, {"packages", {"x"}}})),
            "apt-get install -y 'x'");
  EXPECT_FALSE(command_text(action({{"type", "write_file"}, {"path", "a"}, {"content", "b"}})).has_value());
}

TEST(CommandView, ScriptsTheAgentWroteAreExpandedInEveryForm) {
  known_files files;
  wrote(files, "setup_env.sh", "pip install flash-attn\n");
  for (const char* c : {"sh setup_env.sh", "bash ./setup_env.sh", "./setup_env.sh", "source setup_env.sh",
                        ". setup_env.sh", "bash < setup_env.sh", "cd . && bash -c 'sh setup_env.sh'"}) {
    const auto v = view_command(c, files, 1 << 20);
    EXPECT_TRUE(runs(v, "pip", "flash-attn")) << c;
    EXPECT_THAT(v.scripts, ::testing::ElementsAre("setup_env.sh")) << c;
  }
}

TEST(CommandView, RepositoryScriptsReadButNotWrittenAreNotExpanded) {
  known_files files;
  r2r::sdk::guard::observe_request r;
  r.action = action({{"type", "read_file"}, {"path", "setup.sh"}});
  r.observation.stdout_text = "pip install flash-attn\n";
  files.observe(r);
  EXPECT_FALSE(runs(view_command("bash setup.sh", files, 1 << 20), "pip", "flash-attn"));
}

TEST(CommandView, PatchedScriptsAndNestedScriptsAreExpandedWithoutLooping) {
  known_files files;
  r2r::sdk::guard::observe_request r;
  r.action =
      action({{"type", "apply_patch"}, {"patch", "--- a/s.sh\n+++ b/s.sh\n@@ -0,0 +1 @@\n+pip install xformers\n"}});
  files.observe(r);
  wrote(files, "a.sh", "bash b.sh\n");
  wrote(files, "b.sh", "bash a.sh\nbash s.sh\n");
  const auto v = view_command("bash a.sh", files, 1 << 20);
  EXPECT_TRUE(runs(v, "pip", "xformers"));
}

TEST(CommandView, PythonSystemAndSubprocessLinesAreRead) {
  const auto lines = r2r::plugins::guard::python_shell_lines(
      "import os, subprocess, sys\nos.system(\"pip install a\")\nsubprocess.run('pip install b', shell=True)\n"
      "subprocess.check_call([sys.executable, '-m', 'pip', 'install', 'c'])\nos.popen(f\"pip install d\")\n"
      "print('os.system is not called here')\n");
  EXPECT_THAT(lines,
              ::testing::ElementsAre("pip install a", "pip install b", "python -m pip install c", "pip install d"));
}

TEST(CommandView, ComputedCommandsAreListedAndDenied) {
  known_files files;
  const auto v = view_command("eval \"$(echo cGlwCg== | base64 -d)\"", files, 1 << 20);
  ASSERT_FALSE(v.computed.empty());
  const auto d = r2r::plugins::guard::deny_computed(v, "test guard");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->verdict, "deny");
  EXPECT_THAT(d->unlock, HasSubstr("write the command out"));
  EXPECT_FALSE(r2r::plugins::guard::deny_computed(view_command("pip install einops", files, 1 << 20), "g").has_value());
}

TEST(CommandView, ShellFilesByName) {
  for (const char* p : {"x.sh", "a/b.bash", ".bashrc", "/root/.profile", ".env", "prod.env", ".envrc"})
    EXPECT_TRUE(r2r::plugins::guard::is_shell_file(p)) << p;
  for (const char* p : {"x.py", "env.yaml", "README.md", "environment.yml"})
    EXPECT_FALSE(r2r::plugins::guard::is_shell_file(p)) << p;
}

}  // namespace
