// SPDX-License-Identifier: MIT
// Crash safety of the outputs (issue 19): `repo2rocm plan`, `repo2rocm port` and write_bundle()
// are killed with SIGKILL at random points (deterministic seeds; even trials wait until the
// command starts writing, so some kills land mid-write) while replacing an earlier output. The
// output directory must then be the earlier output or the complete new one, never a mix or a torn
// file: JSON parses, every file belongs to one of the two versions, the bundle verifies.
#include "../bundle/bundle_fixture.hpp"
#include "../plan/fixture_repos.hpp"
#include "../run/run_fixture.hpp"
#include "hostile_repo.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <regex>
#include <thread>

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;
using snapshot = std::map<std::string, std::string>;

constexpr int trials = 16;

pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::unsetenv("R2R_PLUGIN_PATH");
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Every file under `dir` with its content (links as their target text), directories marked.
snapshot contents(const fs::path& dir) {
  snapshot out;
  if (!fs::exists(fs::symlink_status(dir))) return out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const auto rel = it->path().lexically_relative(dir).string();
    if (it->is_symlink()) {
      out[rel] = "link " + fs::read_symlink(it->path()).string();
    } else if (it->is_regular_file()) {
      out[rel] = r2r::test::read_text(it->path());
    } else {
      out[rel] = "<dir>";
    }
  }
  return out;
}

void drop_seconds(json& j) {
  if (j.is_object()) {
    j.erase("seconds");
    for (auto& [k, v] : j.items()) drop_seconds(v);
  } else if (j.is_array()) {
    for (auto& v : j) drop_seconds(v);
  }
}

/// Drops what legitimately differs between two runs of the same command: timings, and the names of
/// temporary directories (OUT.tmp-XXXXXX, the build check's) where a converter quoted a path.
snapshot stable(snapshot s) {
  static const std::regex staging(R"((\.tmp-|r2r-build-check-)[A-Za-z0-9]{6})");
  for (auto& [name, text] : s) {
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) continue;  // left as is: the comparison then fails and shows it
    drop_seconds(j);
    text = std::regex_replace(j.dump(), staging, "");
  }
  return s;
}

/// Copies `from` to `to` (replacing it), links as links.
void restore(const fs::path& from, const fs::path& to) {
  fs::remove_all(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

/// Runs `args` to completion `trials` times from the state `old_dir`, killing each run at a random
/// point, and checks that `out` then equals the old or the new output. Returns the number of
/// kills that landed while the command was running.
int kill_trials(const std::vector<std::string>& args, const fs::path& out, const fs::path& old_dir,
                const snapshot& old_state, const snapshot& new_state, long reference_ms, const fs::path& logs) {
  int killed = 0;
  int mid_write = 0;
  for (int trial = 0; trial < trials; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::mt19937 rng(104729u * static_cast<unsigned>(trial + 1));
    restore(old_dir, out);
    const auto parent_before = r2r::test::listing(out.parent_path(), {}, 4);
    const fs::path log = logs / ("trial-" + std::to_string(trial) + ".log");
    const pid_t pid = spawn(args, log);
    if (trial % 2 == 0) {
      // Wait until the command starts writing next to or into `out`, then a little more.
      while (::waitpid(pid, nullptr, WNOHANG) == 0 && r2r::test::listing(out.parent_path(), {}, 4) == parent_before)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
    } else {
      // Within the first 80% of a reference run, so the kill lands while the command runs.
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % (reference_ms * 8 / 10 + 1)));
    }
    const bool running = ::kill(pid, SIGKILL) == 0;
    const int code = wait_exit(pid);
    if (code == 128 + SIGKILL) {
      ++killed;
      if (trial % 2 == 0) ++mid_write;
    } else {
      EXPECT_EQ(code, 0) << r2r::test::read_text(log);
    }
    (void)running;
    const snapshot now = stable(contents(out));
    const bool is_old = now == old_state;
    const bool is_new = now == new_state;
    EXPECT_TRUE(is_old || is_new) << "a torn output after SIGKILL (exit " << code << "); files: " << [&] {
      std::string names;
      for (const auto& [n, t] : now)
        names += n + (old_state.count(n) && old_state.at(n) == t ? " (old)" : "") +
                 (new_state.count(n) && new_state.at(n) == t ? " (new)" : "") + ", ";
      return names;
    }();
  }
  EXPECT_GE(mid_write, 3) << "kills must land while the output is being written";
  return killed;
}

std::vector<std::string> with_plugins(std::vector<std::string> rest) {
  std::vector<std::string> args = {(r2r::test::env_path("R2R_BIN_DIR") / "repo2rocm").string(), "--plugin-path",
                                   r2r::test::plugin_dir().string()};
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

/// A repository with a kernel and enough bytes that writing its outputs takes a while.
void make_busy_repo(const fs::path& repo, const std::string& version) {
  r2r::test::make_torch_training_repo(repo);
  std::mt19937 rng(17);
  std::string blob(24 << 20, '\0');
  for (auto& c : blob) c = static_cast<char>('a' + rng() % 26);
  r2r::test::write_file(repo, "data/blob.bin", blob);
  for (int i = 0; i < 40; ++i)
    r2r::test::write_file(repo, "csrc/k" + std::to_string(i) + ".cu",
                          "#include <cuda_runtime.h>\n// " + version + "\n__global__ void k" + std::to_string(i) +
                              "(float* x) { x[threadIdx.x] = " + std::to_string(i) + "; }\n");
}

long time_ms(const std::vector<std::string>& args, const fs::path& log) {
  const auto t0 = clock_type::now();
  EXPECT_EQ(wait_exit(spawn(args, log)), 0) << r2r::test::read_text(log);
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - t0).count();
}

TEST(CrashSafety, PortKilledAtRandomLeavesTheOldOrTheNewOutput) {
  r2r::test::temp_dir tmp;
  // OUT alone in its parent, so that the first write beside it is visible (kill_trials waits for it).
  const fs::path repo = tmp.path() / "repo", out = tmp.path() / "work/out", saved = tmp.path() / "saved";
  fs::create_directories(out.parent_path());
  fs::create_directories(tmp.path() / "logs");
  make_busy_repo(repo, "v1");
  // The port pipeline without the build check (hipcc per kernel would make each run take a minute).
  const auto pipeline = r2r::test::env_path("R2R_SOURCE_DIR") / "tests/convert/port_test_pipeline.json";
  const auto args = with_plugins({"port", repo.string(), "--out", out.string(), "--pipeline", pipeline.string()});
  time_ms(args, tmp.path() / "old.log");
  fs::copy(out, saved, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const snapshot old_state = stable(contents(out));
  make_busy_repo(repo, "v2");
  const long ms = time_ms(args, tmp.path() / "new.log");
  const snapshot new_state = stable(contents(out));
  ASSERT_NE(old_state, new_state);
  const int killed = kill_trials(args, out, saved, old_state, new_state, ms, tmp.path() / "logs");
  EXPECT_GE(killed, 10);
}

TEST(CrashSafety, PlanKilledAtRandomLeavesTheOldOrTheNewOutput) {
  r2r::test::temp_dir tmp;
  const fs::path repo = tmp.path() / "repo", out = tmp.path() / "work/out", saved = tmp.path() / "saved";
  fs::create_directories(out.parent_path());
  fs::create_directories(tmp.path() / "logs");
  make_busy_repo(repo, "v1");
  const std::string v1 = r2r::test::git_commit_all(repo, "v1");
  make_busy_repo(repo, "v2");
  const std::string v2 = r2r::test::git_commit_all(repo, "v2");
  auto args = [&](const std::string& commit) {
    return with_plugins({"plan", repo.string(), "--commit", commit, "--out", out.string(), "--cache-dir",
                         (tmp.path() / "cache").string(), "--state-dir", (tmp.path() / "state").string()});
  };
  time_ms(args(v1), tmp.path() / "old.log");
  fs::copy(out, saved, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const snapshot old_state = stable(contents(out));
  const long ms = time_ms(args(v2), tmp.path() / "new.log");
  const snapshot new_state = stable(contents(out));
  ASSERT_NE(old_state, new_state);
  const int killed = kill_trials(args(v2), out, saved, old_state, new_state, ms, tmp.path() / "logs");
  EXPECT_GE(killed, 10);
}

TEST(CrashSafety, BundleWriterKilledAtRandomLeavesTheOldOrAVerifiedNewBundle) {
  r2r::test::temp_dir tmp;
  // A failed run: its verdict needs no stored capture to be re-derived (a pass would).
  r2r::test::bundle_fixture_options fixture;
  fixture.verdict = "fail";
  auto inputs = r2r::test::make_bundle_inputs(tmp.path() / "inputs", fixture);
  // A repository archive large enough that copying it takes a while.
  make_busy_repo(tmp.path() / "big", "v1");
  ASSERT_EQ(r2r::test::run_process("cd '" + (tmp.path() / "big").string() + "' && tar -cf '" +
                                   (tmp.path() / "big.tar").string() + "' *")
                .exit_code,
            0);
  const fs::path out = tmp.path() / "bundle", saved = tmp.path() / "saved";
  ASSERT_TRUE(r2r::report::write_bundle(inputs, out));
  fs::copy(out, saved, fs::copy_options::recursive);
  const snapshot old_state = contents(out);
  inputs.repo_archive = tmp.path() / "big.tar";
  // A patch that applies to that archive (verify checks it does).
  inputs.patch_diff = "--- a/csrc/k0.cu\n+++ b/csrc/k0.cu\n@@ -2 +2 @@\n-// v1\n+// v2\n";
  // The reference duration is the fastest of three writes: one slow write (a loaded machine) made
  // the kill window longer than the writes it then timed, and most children finished first.
  long ms = -1;
  for (int i = 0; i < 3; ++i) {
    restore(saved, out);
    const auto t0 = clock_type::now();
    ASSERT_TRUE(r2r::report::write_bundle(inputs, out));
    const long took = std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - t0).count();
    ms = ms < 0 ? took : std::min(ms, took);
  }
  const snapshot new_state = contents(out);
  r2r::report::verify_options verify;
  auto key = r2r::report::host_public_key(inputs.state_dir);
  ASSERT_TRUE(key && key->has_value()) << "the first write_bundle made the host key";
  verify.trusted_key = **key;
  verify.trusted_key_source = "the test's state directory";
  int killed = 0;
  for (int trial = 0; trial < trials; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::mt19937 rng(15485863u * static_cast<unsigned>(trial + 1));
    restore(saved, out);
    const pid_t pid = ::fork();
    if (pid == 0) _exit(r2r::report::write_bundle(inputs, out) ? 0 : 1);
    // Within the first 80% of a reference write: the kill lands while the writer runs.
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % (ms * 800 + 1)));
    ::kill(pid, SIGKILL);
    if (wait_exit(pid) == 128 + SIGKILL) ++killed;
    const snapshot now = contents(out);
    // The new bundle's report may carry its own time: same files, the new patch, and it verifies.
    const bool is_new = now.size() == new_state.size() && now.count("patch.diff") &&
                        now.at("patch.diff") == new_state.at("patch.diff") &&
                        now.at("repo.tar") == new_state.at("repo.tar");
    EXPECT_TRUE(now == old_state || is_new) << "a torn bundle";
    const auto verified = r2r::report::verify_bundle(out, verify);
    EXPECT_TRUE(verified) << (verified ? "" : verified.error().to_string());
  }
  EXPECT_GE(killed, 10);
}

}  // namespace
