// SPDX-License-Identifier: MIT
// The on-disk contract of one scheduled job attempt, shared by the scheduler plugins. A state
// directory holds:
//   job.sh      the wrapper: takes the lock, refuses to run when `exit` exists, records `started`,
//               runs the command with stdout.log/stderr.log, writes `exit` (atomically, by rename)
//   lock        flock(2)ed for as long as the wrapper or the command lives (the lock is inherited)
//   started     "<pid> <unix time>" once the command was started (<pid>: the wrapper, its session leader)
//   exit        the command's exit status ("<code>"; 128+N when signal N ended it)
//   cancelled   written by cancel
//   gpu, node   where it ran
// So any process can tell, from the files alone, whether a job is running (lock held), finished
// (exit), died (started, no exit, lock free) or never started; that is what makes a batch resumable
// after its own process was SIGKILLed. THREADING: functions only; no shared state.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::scheduler {

/// POSIX sh single-quoting; "{gpu}" inside `word` becomes a reference to $R2R_GPU when gpu_token.
std::string shell_quote(const std::string& word, bool gpu_token = false);

struct wrapper_spec {
  std::vector<std::string> argv;
  std::filesystem::path state_dir;
  std::filesystem::path workdir;
  std::map<std::string, std::string> env;
  std::string gpu_assignment;       // sh code that sets R2R_GPU (e.g. "R2R_GPU='2'")
  std::vector<std::string> header;  // lines after the #! line (e.g. #SBATCH directives)
  // Set by a scheduler that takes the lock itself and starts job.sh with it as fd 9, and that
  // writes `gpu` and `node` itself (the local pool): the wrapper then runs no external command of
  // its own (no readlink, flock, hostname, date, mv), only shell builtins and the job's command.
  // Such a job.sh refuses to run (exit 75) when fd 9 is not open. `started_at` is the unix time
  // written to `started` (the moment the scheduler starts it).
  bool lock_inherited = false;
  long long started_at = 0;
};

/// Writes state_dir/job.sh (0755) and returns its path. Throws std::runtime_error on I/O errors.
std::filesystem::path write_wrapper(const wrapper_spec& spec);

struct job_files {
  bool lock_held = false;  // a wrapper or its command is alive
  bool started = false;
  std::optional<int> exit_status;
  bool cancelled = false;
  std::string gpu, node;
  std::optional<double> started_at, finished_at;
};

/// Reads the state directory (probing the lock without keeping it).
job_files probe(const std::filesystem::path& state_dir);

/// Opens (creating) state_dir/lock and takes it without blocking: the fd (O_CLOEXEC) on success, -1
/// when another process holds it. Throws on I/O errors.
int try_lock(const std::filesystem::path& state_dir);

/// Writes `text` to dir/name through a temporary file and rename.
void write_file_atomic(const std::filesystem::path& dir, const std::string& name, const std::string& text);

/// Reads a small file; "" when missing.
std::string read_small(const std::filesystem::path& path);

}  // namespace r2r::plugins::scheduler
